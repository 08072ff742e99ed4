//go:build !race

package stackgrow

const raceEnabled = false
