module webtron

go 1.25
