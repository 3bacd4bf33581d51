// Package sheet is the one rule for CSV that people open in spreadsheet
// programs: a cell that would be read as a formula is not.
package sheet

import "strings"

// Safe keeps spreadsheet programs from running a cell as a formula: one
// that starts with = + - @ or a tab or carriage return is prefixed with '.
// It changes cells in place and returns them.
func Safe(cells ...string) []string {
	for i, c := range cells {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			cells[i] = "'" + c
		}
	}
	return cells
}
