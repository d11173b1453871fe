package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// The extension's methods as its specification describes them, each with
// example params and, for a request, an example result.
var methodCases = []struct {
	name         string
	direction    Direction
	notification bool
	message      string
	params       string // type name
	result       string // type name; "" for a notification
	paramsJSON   string
	resultJSON   string
	// check looks into the decoded params and result.
	check func(t *testing.T, params, result Message)
}{
	{
		name: MethodGetTask, direction: ClientToServer, message: "GetTaskRequest",
		params: "GetTaskRequestParams", result: "GetTaskResult",
		paramsJSON: `{"taskId":"t-1"}`,
		resultJSON: `{"resultType":"complete","taskId":"t-1","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":60000,"pollIntervalMs":5000}`,
		check: func(t *testing.T, params, result Message) {
			if p := params.(*GetTaskRequestParams); p.TaskID != "t-1" {
				t.Errorf("taskId %q, want t-1", p.TaskID)
			}
			if v, ok := result.(*GetTaskResult).Value.(*GetTaskResultWorking); !ok || v.PollIntervalMs != 5000 {
				t.Errorf("result variant %+v, want a working task polled every 5000 ms", result.(*GetTaskResult).Value)
			}
		},
	},
	{
		name: MethodUpdateTask, direction: ClientToServer, message: "UpdateTaskRequest",
		params: "UpdateTaskRequestParams", result: "UpdateTaskResult",
		paramsJSON: `{"taskId":"t-1","inputResponses":{"name":{"action":"accept","content":{"input":"Luca"}}}}`,
		resultJSON: `{"resultType":"complete"}`,
		check: func(t *testing.T, params, _ Message) {
			if p := params.(*UpdateTaskRequestParams); p.TaskID != "t-1" || len(p.InputResponses) != 1 {
				t.Errorf("params %+v, want task t-1 with one input response", p)
			}
		},
	},
	{
		name: MethodCancelTask, direction: ClientToServer, message: "CancelTaskRequest",
		params: "CancelTaskRequestParams", result: "CancelTaskResult",
		paramsJSON: `{"taskId":"t-2"}`,
		resultJSON: `{"resultType":"complete"}`,
		check: func(t *testing.T, params, _ Message) {
			if p := params.(*CancelTaskRequestParams); p.TaskID != "t-2" {
				t.Errorf("taskId %q, want t-2", p.TaskID)
			}
		},
	},
	{
		name: MethodTaskStatusNotification, direction: ServerToClient, notification: true, message: "TaskStatusNotification",
		params:     "TaskStatusNotificationParams",
		paramsJSON: `{"taskId":"t-3","status":"completed","createdAt":"a","lastUpdatedAt":"b","ttlMs":null,"result":{"content":[],"isError":false}}`,
		check: func(t *testing.T, params, _ Message) {
			v, ok := params.(*TaskStatusNotificationParams).Value.(*TaskStatusNotificationParamsCompleted)
			if !ok || v.TaskID != "t-3" || v.TTLMs != nil || string(v.Result) != `{"content":[],"isError":false}` {
				t.Errorf("params variant %+v, want completed task t-3 with its result", params.(*TaskStatusNotificationParams).Value)
			}
		},
	},
}

func TestMethodTable(t *testing.T) {
	if got, want := len(Methods()), len(methodCases); got != want {
		t.Errorf("%d methods in the table, want %d: %+v", got, want, Methods())
	}
	for _, tc := range methodCases {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := LookupMethod(tc.name)
			if !ok {
				t.Fatalf("LookupMethod(%q) found nothing", tc.name)
			}
			if m.Direction != tc.direction || m.Notification != tc.notification || m.Message != tc.message ||
				m.Params != tc.params || m.Result != tc.result || !m.Versions.Has(LatestVersion) {
				t.Errorf("entry %+v, want direction %d, notification %v, message %s, params %s, result %q in %s",
					m, tc.direction, tc.notification, tc.message, tc.params, tc.result, LatestVersion)
			}
			params := m.NewParams()
			if params == nil {
				t.Fatal("NewParams returned nil")
			}
			if err := json.Unmarshal([]byte(tc.paramsJSON), params); err != nil {
				t.Fatalf("decode params: %v", err)
			}
			if err := params.Validate(); err != nil {
				t.Errorf("validate params: %v", err)
			}
			var result Message
			if tc.notification {
				if r := m.NewResult(); r != nil {
					t.Errorf("a notification has result type %T", r)
				}
			} else {
				var err error
				if result, err = DecodeResult(tc.name, []byte(tc.resultJSON)); err != nil {
					t.Fatalf("DecodeResult: %v", err)
				}
				if err := result.Validate(); err != nil {
					t.Errorf("validate result: %v", err)
				}
			}
			tc.check(t, params, result)
		})
	}
	if _, ok := LookupMethod("tools/call"); ok {
		t.Error("the core's tools/call is in the extension's table")
	}
}

// taskServer answers the extension's requests with fixed results.
type taskServer struct{ got string }

func (s *taskServer) GetTask(_ context.Context, p *GetTaskRequestParams) (*GetTaskResult, error) {
	s.got = p.TaskID
	return &GetTaskResult{Value: &GetTaskResultCancelled{TaskID: p.TaskID, CreatedAt: "a", LastUpdatedAt: "b"}}, nil
}

func (s *taskServer) UpdateTask(_ context.Context, p *UpdateTaskRequestParams) (*UpdateTaskResult, error) {
	s.got = p.TaskID
	return &UpdateTaskResult{}, nil
}

func (s *taskServer) CancelTask(_ context.Context, p *CancelTaskRequestParams) (*CancelTaskResult, error) {
	s.got = p.TaskID
	return &CancelTaskResult{}, nil
}

// dispatchCaller sends each call straight to DispatchServerRequest, as a
// connection to a server composed of the extension's dispatcher would.
type dispatchCaller struct{ h ServerHandler }

func (c dispatchCaller) Call(ctx context.Context, method string, params []byte) ([]byte, error) {
	r, err := DispatchServerRequest(ctx, c.h, LatestVersion, method, params)
	if err != nil {
		return nil, err
	}
	return r.MarshalJSON()
}

func TestClientThroughDispatch(t *testing.T) {
	ctx := context.Background()
	s := &taskServer{}
	c := &Client{Caller: dispatchCaller{s}}
	r, err := c.GetTask(ctx, &GetTaskRequestParams{TaskID: "t-9"})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := r.Value.(*GetTaskResultCancelled); !ok || v.TaskID != "t-9" || s.got != "t-9" {
		t.Errorf("GetTask: server saw %q, client got %+v", s.got, r.Value)
	}
	if _, err := c.CancelTask(ctx, &CancelTaskRequestParams{TaskID: "t-8"}); err != nil || s.got != "t-8" {
		t.Errorf("CancelTask: server saw %q, err %v", s.got, err)
	}

	// A request without its required taskId is -32602, and a method the
	// extension does not define is -32601, which lets a server try the
	// core package's dispatcher next.
	var je *jsonrpc.Error
	if _, err := DispatchServerRequest(ctx, s, LatestVersion, MethodGetTask, []byte(`{}`)); !errors.As(err, &je) || je.Code != -32602 {
		t.Errorf("tasks/get without taskId: %v, want -32602", err)
	}
	if _, err := DispatchServerRequest(ctx, s, LatestVersion, "tools/call", []byte(`{}`)); !errors.As(err, &je) || je.Code != -32601 {
		t.Errorf("tools/call: %v, want -32601", err)
	}
}
