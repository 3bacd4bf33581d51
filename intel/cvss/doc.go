// Package cvss parses CVSS vectors and computes base scores, so CVE watchlist
// entries can be enriched and checked against the scores their sources
// publish.
//
// Versions 3.0 and 3.1 are parsed and scored (ParseV3), version 2 likewise
// (ParseV2, for old NVD records). Version 4.0 is parsed and validated only
// (ParseV4): its score comes from a large lookup table of macro-vectors, and
// Garrison shows the score NVD or the CNA published instead.
//
// Parsing is strict, because a vector that is silently "repaired" would be
// scored as something its author did not write: metric names and values are
// case-sensitive as in the specifications, every base metric must appear
// exactly once, optional metrics at most once, and unknown metrics, bad
// values and empty components are errors that name the offending metric and
// value. Metrics are stored as small indexes into fixed tables, so parsing and
// scoring a valid vector does not allocate.
package cvss
