//go:build !race

package adaptation_test

const raceEnabled = false
