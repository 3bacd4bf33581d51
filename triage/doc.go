// Package triage is the tech-support agent's first pass over a support
// ticket: from the subject and description a client's employee wrote, it
// picks a category from a built-in knowledge base of common MSP problems,
// says how sure it is, suggests a priority and lists concrete resolution
// steps.
//
// It is deliberately deterministic and offline (no network, no model): the
// same ticket always gets the same answer, every answer carries the phrases
// and reasons that produced it, and a technician can predict and audit it.
// Anything it is not sure about — a confidence below [EscalateBelow] — is
// meant for the human queue rather than an automatic reply.
//
// # Matching
//
// Text is lower-cased and split into words on anything that is not a
// letter, digit, combining mark or underscore; apostrophes inside a word are
// dropped ("can't" is "cant") and a plain plural "s" is folded ("printers"
// is "printer"). Each [Article] carries phrases weighted 3 (names the
// problem), 2 (typical of it) or 1 (a hint). A phrase matches only as a
// whole run of words, so "print" never matches "blueprint". It counts once
// per ticket, double when it is in the subject, which is what the user
// thought the problem was. Within one article a word belongs to one phrase
// only, the longest, so "won't print" is not also counted as "print".
//
// # Confidence
//
// With s1 the best article's score and s2 the runner-up's:
//
//	strength   = min(1 − e^(−s1/3), 0.99)  one strong phrase in the subject (s1 = 6) ≈ 0.86
//	share      = 1 − s2/(2·s1)             1 with no competitor, 0.5 when tied
//	confidence = strength × share          rounded to 2 decimals
//
// So a runner-up reaching 80% of the top score always gives a confidence
// below 0.6 (at most 0.99 × 0.6 = 0.594), and two equally matched problems
// never pass [EscalateBelow]. A best score under 3 (say one weak word in
// the subject) is not enough to pick a category: the ticket is "general"
// with confidence at most 0.3.
//
// # Priority
//
// The suggested priority starts at the article's base priority. A few
// articles have critical phrases ("clicked the link", "didn't request",
// "dismissed") that make it high, since they mean a compromise or a hostile
// departure is under way. Otherwise an urgency signal ("urgent", "asap",
// "entire office", "nobody can", "ceo", ...) raises it one level. Ransomware,
// malware alerts and compromised accounts are high to begin with. Every
// change is recorded in the result's reasons.
package triage
