module tremor

go 1.26
