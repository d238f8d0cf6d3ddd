package reports

// FinalAttempts keeps the highest attempt of each (case, epoch, variant),
// in the rows' order: the earlier attempts of a case retried after an
// error (--retries) are in results.parquet, but the run counts each case
// once, by its last attempt, as the collector does while it runs.
func FinalAttempts(rows []ResultRow) []ResultRow {
	final := finalAttempts(rows)
	out := make([]ResultRow, 0, len(final))
	for i, row := range rows {
		if final[row.Key()] == i {
			out = append(out, row)
		}
	}
	return out
}

// finalAttempts maps each (case, epoch, variant) to the index of its
// highest attempt's row.
func finalAttempts(rows []ResultRow) map[CaseKey]int {
	final := make(map[CaseKey]int, len(rows))
	for i, row := range rows {
		if j, ok := final[row.Key()]; !ok || row.Attempt > rows[j].Attempt {
			final[row.Key()] = i
		}
	}
	return final
}
