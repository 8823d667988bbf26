package protocol

import "time"

// TimestampLayout is how AHP writes timestamps (startedAt, modifiedAt, …):
// JavaScript's Date.toISOString, which the fixtures and every TypeScript
// host use.
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// Timestamp formats t the way AHP timestamps are written, in UTC.
func Timestamp(t time.Time) string { return t.UTC().Format(TimestampLayout) }
