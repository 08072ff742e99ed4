// Package check is planctl's validator: it checks a plan against a tool
// catalog before anything runs and reports every problem with its code (the
// table in plan.Codes), JSON Pointer, position and a fix. It also checks a
// tool's result against its outputSchema (CheckResult: RESULT_SCHEMA),
// describes what a tool takes and gives for editors (Params, OutputAt), and
// writes the JSON Schema of plans for a catalog (PlanSchema).
//
// What it derives from a tool's schemas is made once per tool and kept on
// the tool (plan.Tool.Memo), so that a server validating many plans
// against the same tools derives it once.
//
//	p := plan.Load("plan.json", src, plan.Limits{})
//	for _, d := range check.Validate(p, catalog) {
//		fmt.Println(d)
//	}
package check
