package credential

import "strings"

// commonPasswords are refused outright: the most used passwords of 12 or more
// characters in public breach corpora. Shorter ones fail the length rule anyway.
var commonPasswords = map[string]bool{}

func init() {
	for _, p := range strings.Fields(`
		123456789012 1234567890123 12345678901234 123456789000 111111111111 000000000000
		password1234 password12345 password123456 passwordpassword qwertyuiop123 qwertyuiopasdf
		qwerty123456 1q2w3e4r5t6y 1qaz2wsx3edc zaq12wsxcde3 iloveyou1234 administrator
		adminadmin123 letmein12345 welcome12345 welcome123456 changeme1234 passw0rd1234
		p@ssw0rd1234 p@ssword1234 trustno11234 football1234 baseball1234 sunshine1234
		princess1234 dragon123456 monkey123456 abc123456789 abcdefghijkl aaaaaaaaaaaa
		asdfghjkl123 superman1234 starwars1234 michael12345 liverpool123 chelsea12345
		123123123123 123321123321 987654321098 147258369123 qazwsxedcrfv 1234qwerasdf
		mypassword12 mypassword123 correcthorsebatterystaple garrison1234`) {
		commonPasswords[p] = true
	}
}

// PasswordProblem returns why a password is refused, or "" if it is acceptable.
// No composition rules: length and a common-password check only (NIST 800-63B).
func PasswordProblem(password string) string {
	switch {
	case len(password) < MinPasswordLen:
		return "must be at least 12 bytes long"
	case len(password) > MaxPasswordLen:
		return "must be at most 256 bytes long"
	case commonPasswords[strings.ToLower(password)]:
		return "is too common; choose another"
	}
	return ""
}
