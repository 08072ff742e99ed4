//go:build !unix

package cli

// descriptorLimit is unknown here: --max-conns is taken as given.
func descriptorLimit() int64 { return 0 }
