// Package sigma reads Sigma detection rules (the SigmaHQ format: a YAML
// document with a logsource, named searches and a condition) and decides
// whether an event matches one. It knows nothing of where events come
// from: the caller hands it an event's fields by their Sigma names and
// decides which rules an event's log source calls for (package detection).
//
// Matching follows the Sigma specification and pySigma's reading of it:
// strings match whole and case-insensitively, with * and ? as wildcards
// and \ escaping them; contains, startswith and endswith add wildcards; a
// list of values is any of them, all of them with |all; re is an
// unanchored, case-sensitive RE2 regular expression (a rule whose
// expression RE2 cannot compile is refused, naming the line).
package sigma
