// Package concierge reproduces what a Concierge Plan server does besides
// running steps, byte for byte: the checks it makes before it runs
// anything, with its messages (ConciergeCheck), the tool list it gives an
// agent (RenderConcierge), and the argument conversions of tools written
// with FastMCP (FastMCPArgs), which pydantic makes before a tool runs.
//
//	if rej := concierge.ConciergeCheck(p, catalog); rej != nil {
//		fmt.Println(rej.Message) // what Concierge would answer
//	}
package concierge
