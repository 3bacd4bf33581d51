//go:build race

package handlers_test

// raceEnabled: the race detector makes decoding about ten times slower.
const raceEnabled = true
