package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/mcpserver"
)

// The package comment's use: execute_plan served over stdio.
// Here a pipe stands for the client: it initializes, calls execute_plan,
// reads the answer (the message with id 2: its text is what the model
// reads), and closes its end.
func ExampleNew() {
	s := mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"example","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"b","tool":"create_backup","args":{"database":"prod"}}]}}}
`)
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		var answer struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
				IsError bool                    `json:"isError"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &answer) == nil && answer.ID == 2 {
			fmt.Println("isError:", answer.Result.IsError)
			fmt.Println(answer.Result.Content[0].Text)
			break
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	fmt.Println(<-done)
	// Output:
	// isError: false
	// {
	//   "status": "completed",
	//   "steps": {
	//     "b": {
	//       "status": "ok",
	//       "result": {
	//         "backup_id": "bk-prod",
	//         "database": "prod",
	//         "size_bytes": 12345678901234567890,
	//         "created_at": "2026-12-01T03:00:00Z"
	//       }
	//     }
	//   }
	// }
	// <nil>
}
