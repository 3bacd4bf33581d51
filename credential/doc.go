// Package credential makes and checks the secrets Garrison hands out or
// receives: password hashes, API keys and single-use tokens. Everything
// secret is stored hashed; comparisons are constant-time.
package credential
