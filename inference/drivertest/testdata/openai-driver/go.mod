module openaidriver

go 1.26
