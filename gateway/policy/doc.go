// Package policy holds the gateway's per-request limits: token-bucket
// rate limits per principal and per tool (Limiter), a concurrency limit
// per upstream (Semaphore), a circuit breaker per upstream (Breaker), and
// the rule that says which tools need a human approval (Destructive).
//
// Every type that reads time takes a clock, so tests step time instead of
// sleeping. None starts a goroutine.
package policy
