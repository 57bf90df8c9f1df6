#!/usr/bin/env bash
# tests/server/ceph.sh: a throwaway Ceph cluster for the S3 tests: one monitor, one memstore OSD and
# a RADOS Gateway on 127.0.0.1, all under DIR, no systemd, no root needed beyond what the packages
# installed (Debian 12: ceph-mon ceph-osd radosgw, in the Makefile's DEB_PKGS).
#   ceph.sh start DIR   ready in about 2 s; writes DIR/env: S3_ENDPOINT, S3_BUCKET, S3_WEBSITE (the
#                       same port as Host localhost: the website mode, index.html for prefix/), the
#                       test user's AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (made up here, valid
#                       only for this cluster), and S3_PORT
#   ceph.sh stop DIR    the gateway, then the OSD, then the monitor (a monitor stopped first leaves
#                       the OSD waiting for it); DIR's files stay for the caller to remove
# The OSD keeps objects in memory: $CEPH_MEMSTORE_BYTES (default 1 GiB) is its capacity.
# Notes that cost time to find: radosgw reaches the monitor only with ms_mon_client_mode = crc
# secure; paxos_propose_interval = 0.05 takes start-up from 12 s to under 2 s; radosgw starts after
# the OSD is up. A failure prints the logs' tails and exits 1.
set -u
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: ceph.sh start|stop DIR" >&2; exit 2; }

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

stop_pid() { # FILE: the cluster is thrown away, so KILL at once (a polite TERM takes each daemon
	# about 2 s), and wait until the process is gone
	local f=$1 pid i
	[ -s "$f" ] || return 0
	pid=$(cat "$f")
	kill -9 "$pid" 2>/dev/null
	for i in $(seq 1 250); do kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
	if kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" != Z ]; then
		echo "ceph.sh: process $pid ($f) is still there after kill -9" >&2
		return 1
	fi
	rm -f "$f"
}

die() {
	echo "ceph.sh: $*" >&2
	local l
	for l in "$dir"/log/*.log; do [ -s "$l" ] && { echo "--- $l" >&2; tail -n 15 "$l" >&2; }; done
	"$0" stop "$dir"
	exit 1
}

case "$cmd" in
stop)
	stop_pid "$dir/rgw.pid"
	stop_pid "$dir/osd.pid"
	stop_pid "$dir/mon.pid"
	exit 0 ;;
start) ;;
*) echo "usage: ceph.sh start|stop DIR" >&2; exit 2 ;;
esac

for b in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph; do
	command -v "$b" >/dev/null || { echo "ceph.sh: '$b' is missing: make deps installs ceph-mon ceph-osd radosgw" >&2; exit 1; }
done
mkdir -p "$dir/mon" "$dir/osd" "$dir/rgw" "$dir/log" "$dir/run"
dir=$(cd "$dir" && pwd)
mon_port=$(free_port); rgw_port=$(free_port)
fsid=$(python3 -c 'import uuid; print(uuid.uuid4())')
conf="$dir/ceph.conf"
cat >"$conf" <<CONF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
public network = 127.0.0.0/8
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc secure
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
pid file = $dir/run/\$name.pid
crash dir = $dir/crash
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
paxos propose interval = 0.05
mon data avail warn = 1
mon data avail crit = 0
[mon.a]
mon data = $dir/mon
[osd.0]
osd data = $dir/osd
osd objectstore = memstore
memstore device bytes = ${CEPH_MEMSTORE_BYTES:-1073741824}
osd journal size = 0
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw data = $dir/rgw
rgw dns s3website name = localhost
rgw enable static website = true
rgw enable usage log = false
rgw thread pool size = 64
CONF
export CEPH_CONF="$conf"
monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" >/dev/null 2>&1 || die "monmaptool failed"
ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" >"$dir/log/mkfs-mon.out" 2>&1 || die "ceph-mon --mkfs failed"
ceph-mon -c "$conf" -i a -f >"$dir/log/mon.out" 2>&1 &
echo $! >"$dir/mon.pid"
osd_id=$(timeout 20 ceph -c "$conf" osd create 2>"$dir/log/osd-create.err") || die "the monitor did not answer"
ceph-osd -c "$conf" -i "$osd_id" --mkfs >"$dir/log/mkfs-osd.out" 2>&1 || die "ceph-osd --mkfs failed"
ceph-osd -c "$conf" -i "$osd_id" -f >"$dir/log/osd.out" 2>&1 &
echo $! >"$dir/osd.pid"
for i in $(seq 1 200); do
	ceph -c "$conf" osd stat 2>/dev/null | grep -q '1 up' && break
	sleep 0.05
done
ceph -c "$conf" osd stat 2>/dev/null | grep -q '1 up' || die "the OSD did not come up"
radosgw -c "$conf" -n client.rgw -f >"$dir/log/rgw.out" 2>&1 &
echo $! >"$dir/rgw.pid"
for i in $(seq 1 200); do
	curl -s -o /dev/null "http://127.0.0.1:$rgw_port/" && break
	sleep 0.05
done
curl -s -o /dev/null "http://127.0.0.1:$rgw_port/" || die "radosgw did not answer on port $rgw_port"
key=WPTEST$(python3 -c 'import secrets; print(secrets.token_hex(7).upper())')
secret=$(python3 -c 'import secrets; print(secrets.token_hex(20))')
radosgw-admin -c "$conf" -n client.rgw user create --uid wptest --display-name "wheelpick tests" \
	--access-key "$key" --secret-key "$secret" >"$dir/log/user.out" 2>&1 || die "radosgw-admin user create failed"
endpoint="http://127.0.0.1:$rgw_port"
curl -sf -X PUT --aws-sigv4 "aws:amz:us-east-1:s3" --user "$key:$secret" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
	"$endpoint/wheels" >"$dir/log/bucket.out" 2>&1 || die "creating the bucket failed"
cat >"$dir/env" <<ENV
S3_ENDPOINT=$endpoint
S3_PORT=$rgw_port
S3_WEBSITE=http://localhost:$rgw_port
S3_BUCKET=wheels
AWS_ACCESS_KEY_ID=$key
AWS_SECRET_ACCESS_KEY=$secret
AWS_REGION=us-east-1
ENV
