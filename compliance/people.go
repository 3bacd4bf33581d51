package compliance

import (
	"context"
	"strings"

	"garrison/actor"
	"garrison/store"
)

// People names who acted in compliance records (requested an audit,
// attested a control, adopted a policy) the way a reader knows them: a
// user by name and address, an API key by its name, Garrison as itself.
// Never by an id: reports and evidence are read by people.
type People struct {
	users map[string]store.User
	keys  map[string]store.APIKey
}

func newPeople(users []store.User, keys []store.APIKey) People {
	p := People{users: map[string]store.User{}, keys: map[string]store.APIKey{}}
	for _, u := range users {
		p.users[u.ID] = u
	}
	for _, k := range keys {
		p.keys[k.ID] = k
	}
	return p
}

// maxPeople bounds the members and keys read to name people in a report.
const maxPeople = 10000

// people reads the organization's members and API keys (revoked ones too:
// a key may have acted before it was revoked).
func (e *Engine) people(ctx context.Context, orgID string) (People, error) {
	users, _, err := e.store.Members(ctx, orgID, store.Page{Limit: maxPeople})
	if err != nil {
		return People{}, err
	}
	keys, _, err := e.store.APIKeys(ctx, orgID, store.Page{Limit: maxPeople})
	if err != nil {
		return People{}, err
	}
	return newPeople(users, keys), nil
}

// Name names the actor with this id.
func (p People) Name(id string) string {
	if u, ok := p.users[id]; ok {
		if u.Name == "" {
			return u.Email
		}
		return u.Name + " <" + u.Email + ">"
	}
	if k, ok := p.keys[id]; ok {
		return "the API key “" + k.Name + "”"
	}
	switch {
	case id == actor.SystemID:
		return "Garrison"
	case strings.HasPrefix(id, "key_"):
		return "an API key"
	}
	return "a former member of the organization"
}
