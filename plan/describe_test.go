package plan

import "testing"

func TestRenderConcierge(t *testing.T) {
	tools := []*Tool{
		{Name: "validate_backup", Description: "Validate the integrity of a backup.",
			InputSchema:  []byte(`{"type":"object","properties":{"backup_id":{"type":"string"}},"required":["backup_id"]}`),
			OutputSchema: []byte(`{"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]}`),
			Sharable:     map[string]bool{"backup_id": true}},
		{Name: "mixed", InputSchema: []byte(`{"properties":{"z":{"type":["string","null"]},"a":{},"n":{"type":"number"}},"required":["a"]}`),
			OutputSchema: []byte(`{"description":"café ☕ 🚀","default":1.50,"big":1e400,"e":1E5}`), SharableAll: true},
		{Name: "empty", Description: "No parameters.", InputSchema: []byte(`{"type":"object"}`), OutputSchema: []byte(`{}`)},
	}
	want := "  validate_backup(backup_id: string [sharable])\n" +
		"    Validate the integrity of a backup.\n" +
		`    returns: {"type":"object","properties":{"status":{"type":"string"}},"required":["status"]}` + "\n\n" +
		// No description: Concierge still writes its (empty) line.
		"  mixed(z?: ['string', 'null'] [sharable], a: any [sharable], n?: number [sharable])\n\n" +
		`    returns: {"description":"caf\u00e9 \u2615 \ud83d\ude80","default":1.5,"big":null,"e":100000.0}` + "\n\n" +
		"  empty()\n" +
		"    No parameters."
	if got := RenderConcierge(tools); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
