package tasks

import (
	"encoding/json"
	"fmt"
	"testing"
)

// getResult is a tasks/get result for a task waiting on its client, as
// the extension's schema describes it.
const getResult = `{"resultType":"complete","_meta":{"k":1},"taskId":"t-1","status":"input_required",` +
	`"createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:01Z","ttlMs":null,` +
	`"inputRequests":{"q":{"method":"roots/list"}}}`

func TestGetTaskResultPicksVariant(t *testing.T) {
	var r GetTaskResult
	if err := json.Unmarshal([]byte(getResult), &r); err != nil {
		t.Fatal(err)
	}
	v, ok := r.Value.(*GetTaskResultInputRequired)
	if !ok {
		t.Fatalf("variant %T, want *GetTaskResultInputRequired", r.Value)
	}
	if v.TaskID != "t-1" || v.TTLMs != nil || len(v.InputRequests) != 1 || v.Meta == nil {
		t.Errorf("decoded %+v", v)
	}
	if err := r.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var again GetTaskResult
	if err := json.Unmarshal(out, &again); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	out2, _ := json.Marshal(again)
	if string(out) != string(out2) {
		t.Errorf("round trip changed\n%s\nto\n%s", out, out2)
	}
}

func TestGetTaskResultStatuses(t *testing.T) {
	for _, tc := range []struct {
		status, extra string
		want          string
	}{
		{"working", ``, "*tasks.GetTaskResultWorking"},
		{"completed", `,"result":{}`, "*tasks.GetTaskResultCompleted"},
		{"failed", `,"error":{"code":-1,"message":"boom"}`, "*tasks.GetTaskResultFailed"},
		{"cancelled", ``, "*tasks.GetTaskResultCancelled"},
	} {
		doc := `{"resultType":"complete","taskId":"t","status":"` + tc.status + `","createdAt":"a","lastUpdatedAt":"b","ttlMs":5` + tc.extra + `}`
		var r GetTaskResult
		if err := json.Unmarshal([]byte(doc), &r); err != nil {
			t.Errorf("%s: %v", tc.status, err)
			continue
		}
		if got := typeName(r.Value); got != tc.want {
			t.Errorf("%s: variant %s, want %s", tc.status, got, tc.want)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", tc.status, err)
		}
	}
	// A failed task without its error is invalid.
	var r GetTaskResult
	err := json.Unmarshal([]byte(`{"resultType":"complete","taskId":"t","status":"failed","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`), &r)
	if err == nil {
		err = r.Validate()
	}
	if err == nil {
		t.Error("a failed task without error was accepted")
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
