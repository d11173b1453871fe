// Package cluster gives Go tests and benchmarks the cluster that
// cluster/up.sh starts: replicas of examples/everything sharing one Redis,
// behind nginx round-robin. It reads the cluster.env file up.sh writes,
// and kills, restarts and measures the processes up.sh started, by the
// pid files it keeps beside that file.
package cluster

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// EnvVar names the environment variable that holds the path of the
// cluster.env file of a running cluster, as `make cluster` sets it.
const EnvVar = "CLUSTER_ENV"

// UpstreamHeader is the response header in which nginx names the replica
// (its HOST:PORT) that answered.
const UpstreamHeader = "X-Cluster-Upstream"

// Cluster is a running cluster, as its cluster.env describes it.
type Cluster struct {
	// Dir is the cluster's directory: cluster.env, pid files and logs.
	Dir string
	// Scripts is the folder of up.sh, replica.sh and down.sh.
	Scripts string
	// URL is the MCP endpoint behind nginx.
	URL string
	// Replicas are the replicas' HOST:PORT addresses; replica i (1-based,
	// as the scripts count) is Replicas[i-1].
	Replicas []string
	// Store is "redis" or "memory".
	Store string
	// RedisAddr is Redis's HOST:PORT, empty with the memory store.
	RedisAddr string
	// Bin is the examples/everything binary the replicas run.
	Bin string
}

// FromEnv loads the cluster whose cluster.env the EnvVar variable names.
func FromEnv() (*Cluster, error) {
	path := os.Getenv(EnvVar)
	if path == "" {
		return nil, fmt.Errorf("%s is not set: start a cluster with cluster/up.sh DIR and set %s=DIR/cluster.env, or run `make cluster`", EnvVar, EnvVar)
	}
	return Load(path)
}

// Load reads the cluster.env file at path.
func Load(path string) (*Cluster, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("cluster: %s:%d: not KEY=VALUE", path, n)
		}
		env[k] = v
	}
	c := &Cluster{
		Dir:       env["CLUSTER_DIR"],
		Scripts:   env["CLUSTER_SCRIPTS"],
		URL:       env["CLUSTER_URL"],
		Store:     env["CLUSTER_STORE"],
		RedisAddr: env["CLUSTER_REDIS_ADDR"],
		Bin:       env["CLUSTER_BIN"],
	}
	if a := env["CLUSTER_REPLICA_ADDRS"]; a != "" {
		c.Replicas = strings.Split(a, ",")
	}
	if c.Dir == "" || c.Scripts == "" || c.URL == "" || len(c.Replicas) == 0 || c.Bin == "" {
		return nil, fmt.Errorf("cluster: %s lacks CLUSTER_DIR, CLUSTER_SCRIPTS, CLUSTER_URL, CLUSTER_REPLICA_ADDRS or CLUSTER_BIN", path)
	}
	return c, nil
}

// Up starts a cluster of replicas in dir with cluster/up.sh from the
// folder scripts; store is "redis" or "memory", bin a prebuilt
// examples/everything or "" to build one. The caller owns the cluster and
// must call Down.
func Up(ctx context.Context, scripts, dir string, replicas int, store, bin string) (*Cluster, error) {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(scripts, "up.sh"), dir)
	cmd.Env = append(os.Environ(), "CLUSTER_REPLICAS="+strconv.Itoa(replicas), "CLUSTER_STORE="+store, "CLUSTER_BIN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("cluster/up.sh: %w\n%s", err, out)
	}
	return Load(filepath.Join(dir, "cluster.env"))
}

// Down stops the cluster's processes and removes its directory
// (cluster/down.sh).
func (c *Cluster) Down() error {
	if out, err := exec.Command("bash", filepath.Join(c.Scripts, "down.sh"), c.Dir).CombinedOutput(); err != nil {
		return fmt.Errorf("cluster/down.sh: %w\n%s", err, out)
	}
	return nil
}

// Replica returns the 1-based index of the replica at addr, as
// UpstreamHeader names it, or 0 when addr is none of them. nginx names
// every replica it tried, comma-separated; the last one answered.
func (c *Cluster) Replica(addr string) int {
	if i := strings.LastIndex(addr, ","); i >= 0 {
		addr = strings.TrimSpace(addr[i+1:])
	}
	for i, a := range c.Replicas {
		if a == addr {
			return i + 1
		}
	}
	return 0
}

// Pid returns the pid of replica i (1-based).
func (c *Cluster) Pid(i int) (int, error) {
	return readPid(filepath.Join(c.Dir, fmt.Sprintf("replica-%d.pid", i)))
}

// RedisPid returns the pid of redis-server.
func (c *Cluster) RedisPid() (int, error) {
	if c.RedisAddr == "" {
		return 0, errors.New("cluster: no Redis (memory store)")
	}
	return readPid(filepath.Join(c.Dir, "redis.pid"))
}

func readPid(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("cluster: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("cluster: %s holds no pid", path)
	}
	return pid, nil
}

// Kill sends SIGKILL to replica i and returns once it is gone.
func (c *Cluster) Kill(i int) error {
	pid, err := c.Pid(i)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("cluster: kill replica %d (pid %d): %w", i, pid, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for Alive(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster: replica %d (pid %d) outlives SIGKILL", i, pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// Restart starts replica i again (cluster/replica.sh), once it is gone,
// and returns once it answers.
func (c *Cluster) Restart(ctx context.Context, i int) error {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(c.Scripts, "replica.sh"), c.Dir, strconv.Itoa(i))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("cluster/replica.sh %d: %w\n%s", i, err, out)
	}
	return nil
}

// Alive reports whether the process pid runs: it exists and is not a
// zombie waiting for a parent that is not us.
func Alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f, err := statFields(data)
	return err == nil && f[0] != "Z"
}

// CPUTime returns the processor time, user and system, that the process
// pid has used (utime and stime of /proc/PID/stat).
func CPUTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("cluster: %w", err)
	}
	f, err := statFields(data)
	if err != nil {
		return 0, fmt.Errorf("cluster: /proc/%d/stat: %w", pid, err)
	}
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("cluster: /proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	// Linux reports clock ticks of USER_HZ, 100 a second on every
	// architecture Go supports.
	const tick = time.Second / 100
	return time.Duration(utime+stime) * tick, nil
}

// statFields returns the fields of /proc/PID/stat from the third (state)
// on; the second, the command in parentheses, may hold spaces.
func statFields(data []byte) ([]string, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return nil, errors.New("no ')'")
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return nil, errors.New("too few fields")
	}
	return f, nil
}
