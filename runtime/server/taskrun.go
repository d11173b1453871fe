package server

// taskRun is one task this process runs.
type taskRun struct {
	id string
}

// taskStarter turns a call into a task when its handler calls StartTask.
type taskStarter struct {
	start func() error
}
