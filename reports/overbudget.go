package reports

import (
	"github.com/murmur-nexus/murmur-eval/pipeline"
	"github.com/murmur-nexus/murmur-eval/trace"
)

// StatusOverBudget is ResultRow.Status of a case whose loop its
// --case-max-tokens or --case-max-cost ended: unscored, as a timeout is.
const StatusOverBudget = string(pipeline.StatusOverBudget)

// ExitBudgetReached is ResultRow.ExitStatus of such a case: murmur-eval's
// addition to murmur's exit statuses.
const ExitBudgetReached = trace.ExitBudgetReached
