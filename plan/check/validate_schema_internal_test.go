package check

import (
	"math/big"
	"testing"
)

// isIntegral agrees with math/big on literals big can afford to convert, and
// answers at once for those it cannot.
func TestIsIntegral(t *testing.T) {
	for _, lit := range []string{"0", "-0", "0.0", "0e-999999999", "1", "-1", "1.0", "1.5", "10e-1", "100e-2", "101e-2",
		"1e3", "1.25e2", "1.25e1", "1.2500e2", "0.001e3", "0.0011e3", "12345678901234567890", "1E+2", "5e-1", "50e-1",
		"0.000", "123.000e-2", "12300e-2", "1e400", "1e-400", "9.99e2", "7e0", "7.1e0"} {
		r, ok := new(big.Rat).SetString(lit)
		if !ok {
			t.Fatalf("big cannot read %s", lit)
		}
		if got := isIntegral(lit); got != r.IsInt() {
			t.Errorf("isIntegral(%s) = %v, want %v", lit, got, r.IsInt())
		}
	}
	for lit, want := range map[string]bool{"1e999999": true, "1e99999999999999999999": true, "1.5e-99999999999999999999": false, "0e99999999999999999999": true} {
		if got := isIntegral(lit); got != want {
			t.Errorf("isIntegral(%s) = %v, want %v", lit, got, want)
		}
	}
}

func TestTameNumber(t *testing.T) {
	for lit, want := range map[string]string{"1": "1", "1.5e3": "1.5e3", "1e400": "1e400", "1e401": "1e400", "-2E+999999": "-1e400",
		"1e-999999": "0", "-0e999999": "0", "0.0001e402": "0.0001e402", "123e-401": "123e-401", "1e99999999999999999999": "1e400",
		"5e-99999999999999999999": "0"} {
		if got := tameNumber(lit); got != want {
			t.Errorf("tameNumber(%s) = %s, want %s", lit, got, want)
		}
	}
}
