package cli

import "os"

// takeSecretEnv reads a secret from the environment and takes it out:
// from planctl's environment (os.Unsetenv), so that no server planctl
// starts inherits it, and, where the system allows (wipeEnvBlock), from
// the environment block the process started with, which
// /proc/<pid>/environ shows and Unsetenv does not change.
func takeSecretEnv(name string) (string, bool) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return "", false
	}
	os.Unsetenv(name)
	wipeEnvBlock(name)
	return v, true
}
