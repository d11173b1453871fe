package gateway

// parked is a legacy upstream's call waiting on a question a 2026-07-28
// downstream client answers in a round of its own.
type parked struct{}
