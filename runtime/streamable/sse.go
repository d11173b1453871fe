package streamable

import (
	"bytes"
	"net/http"
	"strconv"
	"time"
)

// appendEvent appends one SSE event carrying data, with an id unless id
// is "". JSON may hold line breaks only as whitespace, so a frame holding
// them is split over several data lines, which the client joins again.
func appendEvent(dst []byte, id string, data []byte) []byte {
	if id != "" {
		dst = append(dst, "id: "...)
		dst = append(dst, id...)
		dst = append(dst, '\n')
	}
	dst = append(dst, "event: message\n"...)
	for {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			break
		}
		dst = append(dst, "data: "...)
		dst = append(dst, data[:i]...)
		dst = append(dst, '\n')
		data = data[i+1:]
	}
	dst = append(dst, "data: "...)
	dst = append(dst, data...)
	return append(dst, "\n\n"...)
}

// appendPriming appends the event that 2025-11-25 clients expect first on
// a stream: an id to resume from, the reconnection delay, and no data.
func appendPriming(dst []byte, id string, retry time.Duration) []byte {
	dst = append(dst, "id: "...)
	dst = append(dst, id...)
	dst = append(dst, "\nretry: "...)
	dst = strconv.AppendInt(dst, retry.Milliseconds(), 10)
	return append(dst, "\ndata: \n\n"...)
}

// startSSE writes the headers of an SSE response.
func startSSE(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}
