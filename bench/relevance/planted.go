package main

// planted are notes written into a generated workspace of random prose
// (the bench corpus generator's vocabulary), each the one answer to a
// question below; the distractors share words with them but do not answer.
var planted = map[string]string{
	".vivary/records/decisions/dec-0054.md": "---\nproject: bench\nstatus: accepted\ndate: 2026-03-02\n---\n# DEC-0054: Retry budget for the sync client\n\n" +
		"The sync client retries a failed upload at most five times, waiting twice as long after each attempt, and then gives up and " +
		"reports the failure to the user. Unlimited retries drained phone batteries in the field trial.\n",
	".vivary/records/decisions/dec-0055.md": "---\nproject: bench\nstatus: accepted\ndate: 2026-03-09\n---\n# DEC-0055: Upload size limit\n\n" +
		"Uploads larger than 200 MB are refused by the server; the client splits nothing and tells the user the limit.\n",
	".vivary/records/decisions/decision-0001.md": "---\nproject: bench\nstatus: accepted\ndate: 2026-01-05\n---\n# Use SQLite for the local store\n\n" +
		"We keep downloaded notes in a single SQLite database file because it survives crashes, needs no server and the " +
		"team already knows it. A folder of JSON files was simpler but lost writes when the laptop lost power.\n",
	".vivary/records/decisions/decision-0002.md": "---\nproject: bench\nstatus: superseded\ndate: 2026-01-04\n---\n# Store notes as JSON files\n\n" +
		"Each note is one JSON file in a folder. Superseded by decision-0001.\n",
	"notes/onboarding/Laptop setup.md": "# Laptop setup\n\nInstall the command line tools, clone the repository, then copy `.env.example` to `.env.local` " +
		"and ask the on-call engineer for the staging credentials. The first build takes about ten minutes.\n",
	"notes/oncall/Paging.md": "# Paging\n\nThe pager rotates every Monday at 10:00. If the primary does not acknowledge a page within fifteen " +
		"minutes it escalates to the secondary, then to the engineering manager.\n",
	"notes/oncall/Incident review.md": "# Incident review\n\nWithin five working days of an outage the incident commander writes a blameless review: " +
		"timeline, impact, contributing causes and follow-up tasks with owners.\n",
	"notes/billing/Refunds.md": "# Refunds\n\nCustomers can ask for a refund within 30 days of purchase. Support approves refunds below 100 euros; " +
		"larger amounts need a finance lead's sign-off.\n",
	"notes/billing/Invoices.md": "# Invoices\n\nInvoices are generated on the first day of the month in the customer's currency and emailed as PDF.\n",
	"notes/alpha/Security.md":   "# Security\n\nThe alpha team rotates its signing keys every quarter.\n",
	"notes/beta/Security.md":    "# Security\n\nThe beta team stores backups encrypted in a second region and tests restoring them every month.\n",
	"notes/Release checklist.md": "# Release checklist\n\n" + "```sh\n# Build\nmake release\n```\n\n" +
		"Tag the release, wait for the canary to stay green for an hour, then roll out to every region one at a time.\n",
	"notes/Style guide.md":     "# Style guide\n\nWrite headings in sentence case. Prefer short paragraphs and active verbs; spell out abbreviations on first use.\n",
	"notes/Vacation policy.md": "# Vacation policy\n\nEveryone gets 28 days of paid leave a year; unused days carry over until the end of March.\n",
}

var plantedQuestions = []question{
	{nl, "how many times does the sync client retry a failed upload", []string{".vivary/records/decisions/dec-0054.md"}},
	{nl, "why did we choose sqlite for storing notes locally", []string{".vivary/records/decisions/decision-0001.md"}},
	{nl, "who do I ask for staging credentials when setting up my laptop", []string{"notes/onboarding/Laptop setup.md"}},
	{nl, "what happens when the on-call person does not acknowledge a page", []string{"notes/oncall/Paging.md"}},
	{nl, "when is the blameless review written after an outage", []string{"notes/oncall/Incident review.md"}},
	{nl, "who has to approve a large refund", []string{"notes/billing/Refunds.md"}},
	{nl, "how are backups protected by the beta team", []string{"notes/beta/Security.md"}},
	{nl, "how often are signing keys rotated", []string{"notes/alpha/Security.md"}},
	{nl, "how long must the canary stay green before rolling out", []string{"notes/Release checklist.md"}},
	{nl, "can I carry unused vacation days into next year", []string{"notes/Vacation policy.md"}},
	{nl, "what is the maximum upload size", []string{".vivary/records/decisions/dec-0055.md"}},
	{nl, "in which currency are invoices sent", []string{"notes/billing/Invoices.md"}},
	{kw, "DEC-0054", []string{".vivary/records/decisions/dec-0054.md"}},
	{kw, "decision-0001", []string{".vivary/records/decisions/decision-0001.md"}},
	{kw, "release checklist", []string{"notes/Release checklist.md"}},
	{kw, "refunds", []string{"notes/billing/Refunds.md"}},
}
