#!/usr/bin/env bash
# A walk through Garrison's API with curl, against a server started with
# `go run . serve` in this repository (README: "A curl walkthrough").
# Run it from the repository's root: bash scripts/walkthrough.sh
# It stops at the first answer that is not a success.
set -euo pipefail
B=${B:-https://localhost:8443/api}       # the server's API
DATA=${DATA:-data}                       # its data directory (holds its certificate)
GARRISON=${GARRISON:-go run .}           # the admin CLI, on the same data directory
C="--cacert $DATA/tls-cert.pem"
OUT=$(mktemp -d)                         # downloads go here, not into the repository

# call is curl that prints the answer and stops the walkthrough on an error.
call() {
  local out
  out=$(curl -sS $C "$@") || return 1
  case $out in *'"success":false'*) echo "failed: $out" >&2; return 1 ;; esac
  printf '%s\n' "$out"
}
# field prints the first value of a JSON string field in an answer.
field() {
  local found
  found=$(grep -o "\"$1\":\"[^\"]*\"")  # every "name":"value", read whole (no broken pipe)
  found=${found%%$'\n'*}                   # the first
  found=${found%\"}                         # without its closing quote
  printf '%s\n' "${found##*\"}"             # its value
}
# wait_for polls a URL until its answer holds the text (30 s at most).
wait_for() {
  for _ in $(seq 60); do
    case $(call "$1" -H "Authorization: Bearer $TOKEN") in *"$2"*) return 0 ;; esac
    sleep 0.5
  done
  echo "gave up waiting for $2 at $1" >&2
  return 1
}

# Register: creates the organization "Acme MSP" with you as its admin.
call -X POST $B/auth/register -H 'Content-Type: application/json' \
  -d '{"email":"ann@acme.example","password":"correct horse battery","name":"Ann","org":"Acme MSP"}'

# Log in and keep the session token.
TOKEN=$(call -X POST $B/auth/login -H 'Content-Type: application/json' \
  -d '{"email":"ann@acme.example","password":"correct horse battery"}' | field token)
call $B/auth/me -H "Authorization: Bearer $TOKEN"

# Create an API key; the key is shown in this answer only.
KEY=$(call -X POST $B/api-keys -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"name":"reporting","scope":"read"}' | field key)

# Call with the key.
call $B/org -H "Authorization: Bearer $KEY"
call $B/org/members -H "Authorization: Bearer $KEY"

# A read key cannot manage keys: 403 "Insufficient permissions. Required scope: admin".
curl -s $C $B/api-keys -H "Authorization: Bearer $KEY"; echo

# Send events with a write key, then read the dashboard.
WKEY=$(call -X POST $B/api-keys -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"name":"sensor","scope":"write"}' | field key)
NOW=$(date -u +%Y-%m-%dT%H:%M:%SZ)
call -X POST $B/events -H "Authorization: Bearer $WKEY" -H 'Content-Type: application/json' \
  -d '{"events":[{"type":"threat_detected","severity":"critical","timestamp":"'$NOW'","source":"edr",
       "asset":"ws-07","message":"Emotet CnC beacon","indicator":"185.220.101.4"}]}'
call $B/alerts -H "Authorization: Bearer $KEY"
call $B/dashboard/security-score -H "Authorization: Bearer $KEY"

# Who hears of it: a new organization mails its confirmed admins of critical
# and high alerts; rules add webhooks, Slack, Teams and PagerDuty (docs/api.md,
# "Notifications"). The delivery log shows every message and its attempts.
call $B/notification-rules -H "Authorization: Bearer $TOKEN"
call $B/notifications/deliveries -H "Authorization: Bearer $TOKEN"

# Work the alert: take it, then resolve it saying whether it was real.
ALERT=$(call "$B/alerts?status=open" -H "Authorization: Bearer $KEY" | field id)
ME=$(call $B/auth/me -H "Authorization: Bearer $TOKEN" | field id)
call -X POST $B/alerts/$ALERT/acknowledge -H "Authorization: Bearer $TOKEN"
call -X PATCH $B/alerts/$ALERT -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"assignee":"'$ME'"}'
call -X PATCH $B/alerts/$ALERT -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"status":"resolved","disposition":"true_positive","note":"ws-07 reimaged"}'

# A Suricata sensor posts its EVE log to the webhook (not rate limited). The
# sample was recorded in 2018: its times are moved to now, since events older
# than the retention (90 days by default) are refused.
EVE_NOW=$(date -u +%Y-%m-%dT%H:%M:%S.000000+0000)
sed -E 's/"timestamp":"[^"]*"/"timestamp":"'$EVE_NOW'"/' eve/testdata/ccdc_sample.jsonl |
  call -X POST $B/webhooks/suricata -H "Authorization: Bearer $WKEY" -H 'Content-Type: application/x-ndjson' --data-binary @-

# A firewall and a server send syslog lines. With ?partial=true the good
# lines are stored and the answer names each line left out, and why.
SYSLOG_NOW=$(date -u '+%b %e %H:%M:%S')
printf '%s\n' "$SYSLOG_NOW fw-01 filterlog: 53,,,1000102631,em0,match,block,in,4,0x0,,64,600,0,none,6,tcp,44,203.0.113.9,10.0.2.15,53792,22,0,S,31552001,,65535,,mss" \
  "$SYSLOG_NOW web-01 sshd[1193]: Failed password for root from 203.0.113.9 port 52942 ssh2" \
  "<999>$SYSLOG_NOW web-01 app: a line with a broken priority" |
  call -X POST "$B/webhooks/syslog?partial=true" -H "Authorization: Bearer $WKEY" -H 'Content-Type: text/plain' --data-binary @-

# Search any field (an address or a CIDR, a user, text), and export what matched.
call "$B/events?src_ip=203.0.113.0/24&q=failed" -H "Authorization: Bearer $KEY"
call "$B/events/export?format=csv&src_ip=203.0.113.9" -H "Authorization: Bearer $KEY" -o $OUT/events.csv

# Run an agent: 202 with a run id at once; poll the run for its output.
RUN=$(call -X POST $B/agents/run -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"agent":"threat-researcher","target":"185.220.101.4","options":{"include_cve":true,"mitre_mapping":true}}' | field agent_run_id)
wait_for $B/agents/threat-researcher/executions/$RUN '"status":"completed"'
call $B/agents/threat-researcher/executions/$RUN -H "Authorization: Bearer $TOKEN"

# Submit a ticket; the tech-support agent triages it within seconds.
TKT=$(call -X POST $B/tickets/submit -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"subject":"Locked out","description":"My account is locked out after the password change.","priority":"high"}' | field id)
wait_for $B/tickets/$TKT '"triage_status":"completed"'
call $B/tickets/$TKT -H "Authorization: Bearer $TOKEN"

# Describe the inventory and watch a CVE; one the local intelligence store
# does not hold yet waits as "pending".
call -X POST $B/assets -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '[{"hostname":"ws-07","ip":"10.0.0.7","owner":"Smith Dental","software":[{"vendor":"adobe","product":"acrobat_reader","version":"9.3"}]}]'
CVW=$(call -X POST $B/cve-watchlist -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"cve_id":"cve-2010-2883"}' | field id)
# Feed the store (admin of the operator's organization; the file is the body,
# gzip or not): the import enriches the watched CVE and notifies its watchers.
call -X POST "$B/intel/import?name=nvd.json" -H "Authorization: Bearer $TOKEN" --data-binary @intel/testdata/nvd_sample.json
call -X POST "$B/intel/import?name=kev.json" -H "Authorization: Bearer $TOKEN" --data-binary @intel/testdata/kev_sample.json
call -X POST $B/cve-watchlist -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"cve_id":"CVE-2025-48384"}'                                   # enriched at once: in KEV
call "$B/cve-watchlist?sort=score" -H "Authorization: Bearer $TOKEN"
call $B/cve-watchlist/$CVW -H "Authorization: Bearer $TOKEN"         # CVSS recomputed, patch status, ATT&CK,
                                                                     # ws-07 affected (9.3 is within [9.0, 9.4)), history
wait_for "$B/notifications?unread=true" 'CVE-2010-2883'              # "CVE-2010-2883: Intelligence arrived: …"
# Findings: every asset matched against the whole store, watched or not.
FND=$(call "$B/findings?asset=$(call $B/assets -H "Authorization: Bearer $TOKEN" | field id)" -H "Authorization: Bearer $TOKEN" | field id)
call -X PATCH $B/findings/$FND -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"status":"accepted_risk","reason":"Reader is removed next week","expires_at":"'$(date -u -d '+30 days' +%Y-%m-%dT%H:%M:%SZ)'"}'
# Inventory from osquery (here one host's tables, as `osqueryi --json` gives
# them a table at a time; a pack's results log is taken too): ws-07's
# programs replace its list, Reader is gone, so its finding is fixed.
call -X POST $B/assets/import -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  --data-binary @handlers/testdata/inventory/osquery-ws-07.json          # added, changed, removed per host
call $B/findings/$FND -H "Authorization: Bearer $TOKEN"                  # "status":"fixed", "… is no longer on the asset"

# Outreach is in the Pro and Ultimate plans: the operator moves Acme MSP to Pro
# with the admin CLI. Import prospects as CSV, score them into leads, move one
# through the pipeline.
$GARRISON org set-plan --data "$DATA" --email ann@acme.example --plan pro
call -X POST $B/outreach/prospects -H "Authorization: Bearer $TOKEN" -H 'Content-Type: text/csv' \
  --data-binary $'company,domain,vertical,region,employees,notes\nSmith Dental,smith-dental.example,dental,Ohio,24,"ransomware scare, no IT staff"\n'
HUNT=$(call -X POST $B/agents/msp-hunter/execute -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"region":"Ohio"}' | field agent_run_id)
wait_for $B/agents/msp-hunter/executions/$HUNT '"status":"completed"'
LEAD=$(call "$B/outreach/leads?min_score=50" -H "Authorization: Bearer $TOKEN" | field id)
call -X PATCH $B/outreach/leads/$LEAD/status -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"status":"contacted","note":"Called the office manager"}'
call $B/outreach/leads/$LEAD -H "Authorization: Bearer $TOKEN"       # score_reasons, intelligence_summary, history

# Audit all four compliance frameworks (a run of the compliance agent), wait
# for it, and save the printable report; every failing control is a gap.
RPT=$(call -X POST $B/compliance/audit -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{}' | field report_id)
wait_for $B/compliance/audits/$RPT '"status":"completed"'
call $B/compliance -H "Authorization: Bearer $TOKEN"
curl -sS --fail $C "$B/compliance/audits/$RPT/download?format=html" -H "Authorization: Bearer $TOKEN" -o "$OUT/audit.html"
echo "The printable report is $OUT/audit.html"
GAP=$(call $B/compliance/audits/$RPT -H "Authorization: Bearer $TOKEN" | field gap_id)

# Plan a gap's remediation, then let Garrison apply what it can (key expiry,
# dormant keys, policy adoption); the answer says what changed.
call -X POST $B/compliance/remediate -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d "{\"gap_id\":\"$GAP\",\"auto_apply\":false}"
call -X POST $B/compliance/remediate -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d "{\"gap_id\":\"$GAP\",\"auto_apply\":true}"

# A control no check can evidence is attested by an admin; policies are
# downloaded with the organization's name filled in, and adopted.
call -X PATCH "$B/compliance/controls/soc2/CC6.4" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"status":"pass","note":"Server room is badge-controlled","expires_at":"2027-12-31T00:00:00Z"}'
curl -sS --fail $C "$B/compliance/templates/incident-response/download?format=md" -H "Authorization: Bearer $TOKEN" -o "$OUT/incident-response.md"
call -X POST $B/compliance/templates/incident-response/adopt -H "Authorization: Bearer $TOKEN"
# Become a provider: create two clients (Acme MSP becomes their provider),
# send each its events with one key of the provider (X-Garrison-Org names
# the client), act in one with a switched session, then read every client
# at once: the fleet view, worst first, and one alert queue across them.
DENTAL=$(call -X POST $B/clients -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"name":"Smith Dental"}' | field id)
LAW=$(call -X POST $B/clients -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"name":"Jones Law"}' | field id)
call -X POST $B/events -H "Authorization: Bearer $WKEY" -H "X-Garrison-Org: $DENTAL" -H 'Content-Type: application/json' \
  -d '{"events":[{"type":"threat_detected","severity":"critical","timestamp":"'$NOW'","source":"edr",
       "asset":"dental-fd-01","message":"Ransomware note dropped"}]}'
call -X POST $B/events -H "Authorization: Bearer $WKEY" -H "X-Garrison-Org: $LAW" -H 'Content-Type: application/json' \
  -d '{"events":[{"type":"threat_detected","severity":"high","timestamp":"'$NOW'","source":"firewall",
       "asset":"law-vpn","message":"VPN password spraying"}]}'
IN_DENTAL=$(call -X POST $B/auth/switch-org -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"org_id":"'$DENTAL'"}' | field token)
call $B/org -H "Authorization: Bearer $IN_DENTAL"                    # Smith Dental, kind client
call $B/alerts -H "Authorization: Bearer $IN_DENTAL"                 # its alert only
call "$B/clients?sort=open_critical" -H "Authorization: Bearer $TOKEN"
call "$B/clients/alerts?status=open" -H "Authorization: Bearer $TOKEN"  # each alert names its client
echo "Walkthrough complete."
