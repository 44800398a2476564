package venue_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestWaitTurnGivesBackWhatItCannotSend(t *testing.T) {
	// Margin 1 s, late after 500 ms: a loaded host's stall does not make the
	// on-time cases late.
	limit := venueapi.Limit{Requests: 2, Per: 10 * time.Second}
	refused := errors.New("refused")
	tests := []struct {
		name      string
		at        time.Duration // the turns' time, from when take is called
		notBefore time.Duration // the latest it may be, waited for; 0: at
		held      int           // the turns a pause learnt while they waited covers
		takeErr   error
		cancelIn  time.Duration // 0: ctx is not cancelled
		wantTakes int
		wantBack  int
		wantLate  int
		wantErr   func(error) bool
	}{
		{name: "on time", at: 0, wantTakes: 1, wantErr: func(err error) bool { return err == nil }},
		{name: "ahead, waited for", at: 20 * time.Millisecond, wantTakes: 1, wantErr: func(err error) bool { return err == nil }},
		{name: "held by a pause learnt while it waited, then another after it", at: 20 * time.Millisecond, held: 1, wantTakes: 2, wantBack: 1,
			wantErr: func(err error) bool { return err == nil }},
		{name: "known within a round trip: waited for at its latest, judged late from its earliest", at: -600 * time.Millisecond,
			notBefore: 20 * time.Millisecond, wantTakes: 3, wantBack: 3, wantLate: 3,
			wantErr: func(err error) bool { return errors.As(err, new(*venue.RateLimitedError)) }},
		{name: "refused", takeErr: refused, wantTakes: 1, wantErr: func(err error) bool { return errors.Is(err, refused) }},
		{name: "cancelled while waiting", at: time.Hour, cancelIn: 10 * time.Millisecond, wantTakes: 1, wantBack: 1,
			wantErr: func(err error) bool { return errors.Is(err, context.Canceled) }},
		{name: "every turn reached too late", at: -600 * time.Millisecond, wantTakes: 3, wantBack: 3, wantLate: 3,
			wantErr: func(err error) bool {
				var rl *venue.RateLimitedError
				return errors.As(err, &rl) && !rl.Venue && rl.RetryAfter == time.Second
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancelIn > 0 {
				time.AfterFunc(tt.cancelIn, cancel)
			}
			takes, back := 0, 0
			late, err := venue.WaitTurn(ctx, limit, func(context.Context) (venue.Turn, error) {
				takes++
				if tt.takeErr != nil {
					return venue.Turn{}, tt.takeErr
				}
				turn := venue.Turn{At: time.Now().Add(tt.at), GiveBack: func() { back++ }, Held: func(context.Context) bool { return takes <= tt.held }}
				if tt.notBefore != 0 {
					turn.NotBefore = time.Now().Add(tt.notBefore)
				}
				return turn, nil
			})
			if !tt.wantErr(err) || takes != tt.wantTakes || back != tt.wantBack || late != tt.wantLate {
				t.Errorf("err %v, %d turns taken, %d given back, %d late; want %d, %d, %d", err, takes, back, late, tt.wantTakes, tt.wantBack, tt.wantLate)
			}
		})
	}
}
