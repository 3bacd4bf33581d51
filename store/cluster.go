package store

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Nodes on one PostgreSQL database tell each other what changed: what a
// node holds in memory (the auth cache, compiled detection rules) is read
// again when another node changes it, and work queued on one node (an
// alert to notify, a mail to send) wakes the node that does it. The news
// travels by LISTEN/NOTIFY, at once; a topic whose memory must not go
// stale also counts its changes in cluster_epochs, in the transaction that
// makes them, and every node looks at the counts each clusterPoll: a
// notification missed (a dropped connection) is caught up within that.
// On SQLite there is one process: a change is heard by this store only.

// Topics of changes.
const (
	// TopicAuth: users, sessions and API keys (the auth cache).
	TopicAuth = "auth"
	// TopicDetection: organizations' detection rules and choices.
	TopicDetection = "detection"
	// TopicAlertSignals: alerts opened or resolved, to notify about.
	TopicAlertSignals = "alert-signals"
	// TopicMail: mail queued in the outbox.
	TopicMail = "mail"
	// TopicAgentRuns: agent runs queued.
	TopicAgentRuns = "agent-runs"
	// TopicFindings: assets or CVEs changed, to match again.
	TopicFindings = "findings"
)

// epochTopics are the topics counted in cluster_epochs.
var epochTopics = []string{TopicAuth, TopicDetection}

// notifyChannel is the LISTEN/NOTIFY channel of a Garrison database.
const notifyChannel = "garrison"

// clusterPoll is how often a node reads cluster_epochs: the longest a
// change to cached state goes unseen when its notification is lost.
const clusterPoll = time.Second

// announceWait bounds an announcement's round trip.
const announceWait = 2 * time.Second

// clusterBus keeps the topics' listeners and what the node last saw.
type clusterBus struct {
	mu     sync.Mutex
	subs   map[string][]func()
	epochs map[string]int64
}

// OnChange has fn called whenever topic changes, on this node or (on
// PostgreSQL) another.
func (s *Store) OnChange(topic string, fn func()) {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	if s.bus.subs == nil {
		s.bus.subs = map[string][]func(){}
	}
	s.bus.subs[topic] = append(s.bus.subs[topic], fn)
}

// heard calls topic's listeners.
func (b *clusterBus) heard(topic string) {
	b.mu.Lock()
	subs := b.subs[topic]
	b.mu.Unlock()
	for _, fn := range subs {
		fn()
	}
}

// Announce tells every node that topic changed; on SQLite, this store's
// listeners. A lost announcement is no loss: what waits for it also looks
// on its own, every few seconds.
func (s *Store) Announce(topic string) {
	if !s.pg {
		s.bus.heard(topic)
		return
	}
	// The nodes hear it from PostgreSQL, this one included.
	ctx, cancel := context.WithTimeout(context.Background(), announceWait)
	defer cancel()
	if _, err := s.writer.ExecContext(ctx, `SELECT pg_notify(?, ?)`, notifyChannel, topic); err != nil {
		s.bus.heard(topic) // this node at least
	}
}

// writeAnnouncing is write for a change to what nodes hold of topic (an
// epoch topic): the change is counted and announced in its own
// transaction, so another node sees it whether or not its notification
// arrives, and this store's listeners hear of it once it is committed.
func (s *Store) writeAnnouncing(ctx context.Context, topic string, fn func(tx *sql.Tx) error) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if !s.pg {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE cluster_epochs SET n = n + 1 WHERE topic = ?`, topic); err != nil {
			return fmt.Errorf("count a change of %s: %w", topic, err)
		}
		if _, err := tx.ExecContext(ctx, `SELECT pg_notify(?, ?)`, notifyChannel, topic); err != nil {
			return fmt.Errorf("announce a change of %s: %w", topic, err)
		}
		return nil
	})
	if err == nil {
		s.bus.heard(topic)
	}
	return err
}

// listen hears the other nodes until ctx ends: their notifications as
// they come, and the epochs every clusterPoll. Each time it starts
// listening, the first time included, every epoch topic is taken as
// changed: anything may have been missed before.
func (s *Store) listen(ctx context.Context, log *slog.Logger) {
	var wg sync.WaitGroup
	wg.Go(func() { s.pollEpochs(ctx, log) })
	defer wg.Wait()
	// What was cached before the first LISTEN took effect may be stale
	// already: the first connection, too, counts as after a gap.
	for ctx.Err() == nil {
		err := s.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		log.Warn("listening to the other nodes failed; listening again", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(clusterPoll):
		}
	}
}

func (s *Store) listenOnce(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.pgURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+notifyChannel); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	for _, t := range epochTopics {
		s.bus.heard(t)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("wait for a notification: %w", err)
		}
		s.bus.heard(n.Payload)
	}
}

// pollEpochs reads cluster_epochs every clusterPoll, and tells the
// listeners of each topic whose count moved since it last looked.
func (s *Store) pollEpochs(ctx context.Context, log *slog.Logger) {
	t := time.NewTicker(clusterPoll)
	defer t.Stop()
	var failing bool
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		seen, err := queryAll(ctx, s.reads(), "cluster epochs", `SELECT topic, n FROM cluster_epochs`, nil,
			func(rows *sql.Rows) (topicCount, error) {
				var c topicCount
				return c, rows.Scan(&c.topic, &c.n)
			})
		if err != nil {
			if !failing && ctx.Err() == nil {
				log.Warn("reading the cluster's change counts failed", "err", err)
			}
			failing = true
			continue
		}
		failing = false
		for _, c := range seen {
			s.bus.mu.Lock()
			if s.bus.epochs == nil {
				s.bus.epochs = map[string]int64{}
			}
			was, known := s.bus.epochs[c.topic]
			s.bus.epochs[c.topic] = c.n
			s.bus.mu.Unlock()
			if known && was != c.n {
				s.bus.heard(c.topic)
			}
		}
	}
}

type topicCount struct {
	topic string
	n     int64
}
