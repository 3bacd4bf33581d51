package handlers

import "sync"

// knownClientsMax bounds the accounts whose sign-in addresses are kept:
// past it the oldest are forgotten (their owners then meet the per-account
// bucket until they sign in once more).
const knownClientsMax = 100_000

// perAccount bounds the addresses kept for one account.
const perAccount = 8

// knownClients remembers, per account, the client addresses (rate-limit
// keys) it signed in from. A correct password from one of them is not held
// by the per-account failed-login bucket, so an attacker guessing an
// account's password from elsewhere cannot lock its owner out.
type knownClients struct {
	mu    sync.Mutex
	max   int
	byKey map[string][]string // account → its addresses, newest last
	order []string            // accounts, oldest first, for eviction
}

func newKnownClients(max int) *knownClients {
	return &knownClients{max: max, byKey: map[string][]string{}}
}

// has reports whether account signed in from client before.
func (k *knownClients) has(account, client string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, c := range k.byKey[account] {
		if c == client {
			return true
		}
	}
	return false
}

// add notes a sign-in of account from client.
func (k *knownClients) add(account, client string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	clients, ok := k.byKey[account]
	if !ok {
		if len(k.order) >= k.max {
			delete(k.byKey, k.order[0])
			k.order = k.order[1:]
		}
		k.order = append(k.order, account)
	}
	for i, c := range clients {
		if c == client {
			clients = append(clients[:i], clients[i+1:]...)
			break
		}
	}
	if len(clients) >= perAccount {
		clients = clients[1:]
	}
	k.byKey[account] = append(clients, client)
}
