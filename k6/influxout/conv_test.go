package influxout

import "strconv"

func parseInt(v string) (int64, error)     { return strconv.ParseInt(v, 10, 64) }
func parseFloat(v string) (float64, error) { return strconv.ParseFloat(v, 64) }
func parseBool(v string) (bool, error)     { return strconv.ParseBool(v) }
