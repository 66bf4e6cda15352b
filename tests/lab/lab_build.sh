# tests/lab/lab_build.sh -- how `lab up` builds a lab: namespaces and links,
# routes and sysctls, the targets of cases.tsv (addresses, mbox rules and the
# netfilter rules that feed them, lab filters, NAT), names, daemons.
# Sourced by tests/lab/lab, which provides PFX, ST, log, die, nx, rows,
# read_row, pid_start, pid_is and the settings; see README.md.

# veth pair A:IFA <-> B:IFB on link NUM: A is .1 / ::1, B is .2 / ::2
link() {
	local a=${1%%:*} ifa=${1#*:} b=${2%%:*} ifb=${2#*:} k=$3
	ip -n "$PFX$a" link add "$ifa" type veth peer name "$ifb" netns "$PFX$b"
	ip -n "$PFX$a" addr add "198.18.$k.1/24" dev "$ifa"
	ip -n "$PFX$a" addr add "fd00:5ca1:$k::1/64" dev "$ifa" nodad
	ip -n "$PFX$b" addr add "198.18.$k.2/24" dev "$ifb"
	ip -n "$PFX$b" addr add "fd00:5ca1:$k::2/64" dev "$ifb" nodad
	ip -n "$PFX$a" link set "$ifa" up
	ip -n "$PFX$b" link set "$ifb" up
	LINKS+=("$a $ifa $b $ifb $k")
}

mac_of() { ip -n "$PFX$1" -o link show dev "$2" | grep -o 'link/ether [^ ]*' | cut -d' ' -f2; }

# permanent neighbours on every link: no ARP / ND traffic, no unresolved queue
static_neighbours() {
	local l a ifa b ifb k ma mb
	for l in "${LINKS[@]}"; do
		read -r a ifa b ifb k <<<"$l"
		ma=$(mac_of "$a" "$ifa")
		mb=$(mac_of "$b" "$ifb")
		ip -n "$PFX$a" neigh replace "198.18.$k.2" lladdr "$mb" dev "$ifa" nud permanent
		ip -n "$PFX$a" neigh replace "fd00:5ca1:$k::2" lladdr "$mb" dev "$ifa" nud permanent
		ip -n "$PFX$b" neigh replace "198.18.$k.1" lladdr "$ma" dev "$ifb" nud permanent
		ip -n "$PFX$b" neigh replace "fd00:5ca1:$k::1" lladdr "$ma" dev "$ifb" nud permanent
	done
	# r1's SNAT source for the leaked-NAT cases lives on link 2, as r2 sees it
	ip -n "$PFX"r2 neigh replace 198.18.2.100 lladdr "$(mac_of r1 east)" dev west nud permanent
	ip -n "$PFX"r2 neigh replace fd00:5ca1:2::100 lladdr "$(mac_of r1 east)" dev west nud permanent
}

# A router's ICMP limits (sysctl args), set in its own namespace only.
# LAB_ICMP_LIMITS unset or "off": none, so traces are deterministic (a
# trace burst is never rate-limited).  "default": the kernel's defaults,
# as routers on the Internet run: a burst of 6 errors to one destination,
# then 1 a second (icmp_ratelimit 1000 ms, IPv4 and IPv6), and 1,000 a
# second in all (icmp_msgs_per_sec, burst 50, shared by ICMPv6).
# LAB_ICMP_SLOW=rK (with "default"): router rK answers at most one error
# a second in all (icmp_msgs_per_sec 1, burst 1), as hardware routers do.
icmp_limits() {
	case ${LAB_ICMP_LIMITS:-off} in
	off)
		echo net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0 \
		    net.ipv4.icmp_msgs_per_sec=100000 net.ipv4.icmp_msgs_burst=100000 ;;
	default)
		if [ "${LAB_ICMP_SLOW:-}" = "$1" ]; then
			echo net.ipv4.icmp_ratelimit=1000 net.ipv6.icmp.ratelimit=1000 \
			    net.ipv4.icmp_msgs_per_sec=1 net.ipv4.icmp_msgs_burst=1
		else
			echo net.ipv4.icmp_ratelimit=1000 net.ipv6.icmp.ratelimit=1000 \
			    net.ipv4.icmp_msgs_per_sec=1000 net.ipv4.icmp_msgs_burst=50
		fi ;;
	*) die "LAB_ICMP_LIMITS '${LAB_ICMP_LIMITS}': off or default" ;;
	esac
}

topology() {
	local n k j
	for n in $NAMES; do
		ip netns add "$PFX$n"
		echo "$PFX$n" >>"$ST/namespaces"
		nx "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
		    net.ipv6.conf.all.accept_ra=0 net.ipv6.conf.default.accept_ra=0 \
		    net.ipv6.conf.default.router_solicitations=0 \
		    net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
		ip -n "$PFX$n" link set lo up
	done
	LINKS=()
	link prober:east r1:west 1
	for k in 1 2 3 4; do link "r$k:east" "r$((k + 1)):west" $((k + 1)); done
	link r5:srv srv:west 6
	link r5:nows srv-nows:west 7
	link r5:cookie srv-cookie:west 8
	link r5:synp synp:west $SYNP_LINK
	link synp:srv srv-synp:west "${SRV_LINK[srv-synp]}"
	link prober:any anyip:west $ANY_LINK
	mp_on && mp_links
	ip -n "$PFX"r1 addr add 198.18.2.100/24 dev east
	# deprecated (preferred_lft 0): masquerade must pick ::1, as it picks
	# the primary 198.18.2.1 for IPv4; only the leaked-NAT SNAT uses ::100
	ip -n "$PFX"r1 addr add fd00:5ca1:2::100/64 dev east nodad preferred_lft 0
	static_neighbours

	# prober: the chain for the lab's ranges, its own link for AnyIP.  No
	# default route: a stray probe to any other address fails right here.
	ip -n "$PFX"prober route add 198.18.0.0/15 via 198.18.1.2
	ip -n "$PFX"prober -6 route add fd00::/8 via fd00:5ca1:1::2
	for k in 1 2 3 4 5; do
		for j in $(seq 1 $((k - 1))) $ANY_LINK; do
			ip -n "$PFX"r$k route add "198.18.$j.0/24" via "198.18.$k.1"
			ip -n "$PFX"r$k -6 route add "fd00:5ca1:$j::/64" via "fd00:5ca1:$k::1"
		done
		if [ $k -lt 5 ]; then
			ip -n "$PFX"r$k route add 198.18.0.0/15 via "198.18.$((k + 1)).2"
			ip -n "$PFX"r$k -6 route add fd00::/8 via "fd00:5ca1:$((k + 1))::2"
		fi
		nx r$k sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
		    $(icmp_limits r$k) \
		    net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
	done
	# synp: the SYN-proxy router after r5 (hop 6); its server srv-synp is at
	# D = 7.  Its own conntrack (SYNPROXY needs it) lives here alone: the
	# routers that queue to mbox must never track connections (README.md).
	ip -n "$PFX"synp route add 198.18.0.0/15 via "198.18.$SYNP_LINK.1"
	ip -n "$PFX"synp -6 route add fd00::/8 via "fd00:5ca1:$SYNP_LINK::1"
	nx synp sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
	    $(icmp_limits synp) \
	    net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
	for n in "${!SRV_LINK[@]}"; do
		k=${SRV_LINK[$n]}
		ip -n "$PFX$n" route add 198.18.0.0/15 via "198.18.$k.1"
		ip -n "$PFX$n" -6 route add fd00::/8 via "fd00:5ca1:$k::1"
	done
	ip -n "$PFX"anyip route add 198.18.0.0/15 via "198.18.$ANY_LINK.1"
	ip -n "$PFX"anyip -6 route add fd00::/8 via "fd00:5ca1:$ANY_LINK::1"
	# checksums and segments as on a wire wherever kernels originate TCP
	for n in srv srv-nows srv-cookie srv-synp anyip; do nx "$n" "$PY" "$LAB_DIR/txcsum.py" west; done
	nx prober "$PY" "$LAB_DIR/txcsum.py" east any
	# the SYN proxy originates TCP too (its SYN-ACKs, window updates)
	nx synp "$PY" "$LAB_DIR/txcsum.py" west srv
	nx srv-nows sysctl -qw net.ipv4.tcp_window_scaling=0
	nx srv-cookie sysctl -qw net.ipv4.tcp_syncookies=2
	nx anyip sysctl -qw net.ipv4.tcp_syncookies=2 net.core.somaxconn=65535
	mp_on && mp_routes
	return 0
}

# Targets from the table: addresses on the servers, r5's routes to them, and
# every behaviour: mbox rules and the iptables rules that queue to it, lab
# filters (nft), NAT.  Generated files go to $ST.
targets() {
	local name kind v4 v6 port server dist box hook action arg quote8 silent
	local nat natq v0 v7 v14 q0 q7 q14 hop clean side seen_by desc r q f
	declare -A QUOTERS=() SRVBATCH=() IPT4=() IPT6=() NFT=() VIABATCH=()
	local r5batch="" natrules="" leak=0

	while read_row; do
		if [ "$kind" = range ]; then
			ip -n "$PFX$server" route add local "$v4" dev lo
			ip -n "$PFX$server" -6 route add local "$v6" dev lo
			ip -n "$PFX"prober route add "$v4" via "198.18.$ANY_LINK.2"
			ip -n "$PFX"prober -6 route add "$v6" via "fd00:5ca1:$ANY_LINK::2"
			continue
		fi
		[ -n "${SRV_LINK[$server]:-}" ] || die "cases.tsv: $name: unknown server $server"
		SRVBATCH[$server]+="addr add $v4/32 dev lo"$'\n'"addr add $v6/128 dev lo nodad"$'\n'
		if [ -n "${SRV_VIA[$server]:-}" ]; then
			# behind a router of its own: r5 -> that router -> the server
			r5batch+="route add $v4/32 via 198.18.$SYNP_LINK.2"$'\n'
			r5batch+="route add $v6/128 via fd00:5ca1:$SYNP_LINK::2"$'\n'
			VIABATCH[${SRV_VIA[$server]}]+="route add $v4/32 via 198.18.${SRV_LINK[$server]}.2"$'\n'
			VIABATCH[${SRV_VIA[$server]}]+="route add $v6/128 via fd00:5ca1:${SRV_LINK[$server]}::2"$'\n'
		else
			r5batch+="route add $v4/32 via 198.18.${SRV_LINK[$server]}.2"$'\n'
			r5batch+="route add $v6/128 via fd00:5ca1:${SRV_LINK[$server]}::2"$'\n'
		fi
		case "$action" in
		-) ;;
		drop)
			NFT[$box]+="ip daddr $v4 drop"$'\n'"ip6 daddr $v6 drop"$'\n' ;;
		reject-admin)
			NFT[$box]+="ip daddr $v4 reject with icmp type admin-prohibited"$'\n'
			NFT[$box]+="ip6 daddr $v6 reject with icmpv6 type admin-prohibited"$'\n' ;;
		synproxy)
			[ "$box" = synp ] && [ "$hook" = forward ] ||
			    die "cases.tsv: $name: synproxy runs on synp, hook forward"
			synproxy_rules "$v4" "$v6" ;;
		*)
			[[ $box =~ ^r[1-5]$ ]] || die "cases.tsv: $name: box $box is not a router"
			q=${box#r}
			f=$ST/mbox-$box.rules
			[ "$arg" = - ] && arg=""
			printf '%s %s %s\t# %s\n%s %s %s\t# %s\n' "$v4" "$action" "$arg" "$name" \
			    "$v6" "$action" "$arg" "$name" >>"$f"
			case "$hook" in
			ingress)
				IPT4[$box]+="-t mangle -A PREROUTING -d $v4/32 -p tcp --tcp-flags SYN,ACK SYN -j NFQUEUE --queue-num $q"$'\n'
				IPT6[$box]+="-t mangle -A PREROUTING -d $v6/128 -p tcp --tcp-flags SYN,ACK SYN -j NFQUEUE --queue-num $q"$'\n' ;;
			egress)
				IPT4[$box]+="-t filter -A FORWARD -d $v4/32 -p tcp --tcp-flags SYN,ACK SYN -j NFQUEUE --queue-num $q"$'\n'
				IPT6[$box]+="-t filter -A FORWARD -d $v6/128 -p tcp --tcp-flags SYN,ACK SYN -j NFQUEUE --queue-num $q"$'\n' ;;
			*) die "cases.tsv: $name: hook '$hook' for $action" ;;
			esac ;;
		esac
		for r in ${quote8//,/ }; do
			[ "$r" = - ] && continue
			printf '%s quote-8byte\t# %s\n%s quote-8byte\t# %s\n' "$v4" "$name" "$v6" "$name" >>"$ST/mbox-$r.rules"
			QUOTERS[$r]=1
		done
		for r in ${silent//,/ }; do
			[ "$r" = - ] && continue
			printf '%s quote-silent\t# %s\n%s quote-silent\t# %s\n' "$v4" "$name" "$v6" "$name" >>"$ST/mbox-$r.rules"
			QUOTERS[$r]=1
		done
		if [ "$nat" != - ]; then
			[ "$nat" = r1 ] || die "cases.tsv: $name: NAT is set up on r1 only"
			case "$natq" in
			translated)
				natrules+="oifname east ip daddr $v4 masquerade fully-random"$'\n'
				natrules+="oifname east ip6 daddr $v6 masquerade fully-random"$'\n' ;;
			leaked)
				natrules+="oifname east ip daddr $v4 snat ip to 198.18.2.100 fully-random"$'\n'
				natrules+="oifname east ip6 daddr $v6 snat ip6 to fd00:5ca1:2::100 fully-random"$'\n'
				leak=1 ;;
			*) die "cases.tsv: $name: natq '$natq'" ;;
			esac
		fi
	done < <(rows)

	for n in "${!SRVBATCH[@]}"; do printf '%s' "${SRVBATCH[$n]}" | ip -n "$PFX$n" -batch -; done
	printf '%s' "$r5batch" | ip -n "$PFX"r5 -batch -
	for n in "${!VIABATCH[@]}"; do printf '%s' "${VIABATCH[$n]}" | ip -n "$PFX$n" -batch -; done

	# Quotes: every time-exceeded a quoting router sends goes through its
	# mbox, which changes only those whose quoted destination it names.
	for r in "${!QUOTERS[@]}"; do
		q=${r#r}
		IPT4[$r]+="-t filter -A OUTPUT -p icmp --icmp-type time-exceeded -j NFQUEUE --queue-num $q"$'\n'
		IPT6[$r]+="-t filter -A OUTPUT -p ipv6-icmp --icmpv6-type time-exceeded -j NFQUEUE --queue-num $q"$'\n'
	done
	for r in "${!IPT4[@]}"; do
		ipt_restore "$r" iptables-restore "${IPT4[$r]}"
		ipt_restore "$r" ip6tables-restore "${IPT6[$r]}"
	done
	# NAT on r1, natively in nft (this kernel has no IPv6 xt MASQUERADE), and
	# on r1 only: with conntrack in a namespace, NFQUEUE silently drops the
	# router's own time-exceeded messages (they carry the unconfirmed
	# conntrack of the expired packet), so routers that quote through mbox
	# must not track connections.
	if [ -n "$natrules" ]; then
		printf 'table inet lab-nat {\n chain post {\n  type nat hook postrouting priority srcnat; policy accept;\n%s }\n}\n' \
		    "$natrules" | nx r1 nft -f -
		# conntrack must not judge windows that boxes downstream rewrite
		nx r1 sysctl -qw net.netfilter.nf_conntrack_tcp_be_liberal=1
	fi
	if [ $leak = 1 ]; then
		# A NAT that leaves quoted headers alone: ICMP errors to the SNAT
		# source bypass conntrack (so it cannot translate the quote) and only
		# their outer destination is set back to the prober.
		nx r1 nft -f - <<-EOF
		table inet lab-natleak {
		    chain pre {
		        type filter hook prerouting priority -300; policy accept;
		        iifname "east" ip daddr 198.18.2.100 meta l4proto icmp notrack ip daddr set 198.18.1.1
		        iifname "east" ip6 daddr fd00:5ca1:2::100 meta l4proto ipv6-icmp notrack ip6 daddr set fd00:5ca1:1::1
		    }
		}
		EOF
	fi
	for n in "${!NFT[@]}"; do
		if [[ $n =~ ^r[1-5]$ ]]; then f="hook forward"; else f="hook input"; fi
		printf 'table inet lab {\n chain c {\n  type filter %s priority 0; policy accept;\n%s }\n}\n' \
		    "$f" "${NFT[$n]}" | nx "$n" nft -f -
	done
	# AnyIP: count the SYN-ACKs sent, per family (lab anyip-count)
	nx anyip nft -f - <<-EOF
	table inet lab {
	    counter synack4 { }
	    counter synack6 { }
	    chain out {
	        type filter hook output priority 0; policy accept;
	        meta nfproto ipv4 tcp flags & (syn | ack) == syn | ack counter name "synack4"
	        meta nfproto ipv6 tcp flags & (syn | ack) == syn | ack counter name "synack6"
	    }
	}
	EOF
}

# synproxy_rules V4 V6: netfilter's SYNPROXY on synp in front of the server
# at V4 / V6, as DDoS filters deploy it: the client's SYN bypasses conntrack
# (notrack) and is answered by the proxy itself (its own options, window 0,
# a syncookie); the ACK that completes that handshake is INVALID to
# conntrack (tcp_loose=0: no pick-up of connections seen mid-way), reaches
# SYNPROXY, which checks the cookie and only then opens the connection to
# the server; whatever else conntrack cannot place is dropped.
synproxy_rules() {
	local v4=$1 v6=$2 cmd a
	for cmd in iptables ip6tables; do
		if [ $cmd = iptables ]; then a=$v4/32; else a=$v6/128; fi
		nx synp "$cmd" -t raw -A PREROUTING -d "$a" -p tcp --syn -j CT --notrack
		nx synp "$cmd" -A FORWARD -d "$a" -p tcp -m conntrack --ctstate INVALID,UNTRACKED \
		    -j SYNPROXY --sack-perm --timestamp --wscale 5 --mss 1400
		nx synp "$cmd" -A FORWARD -d "$a" -p tcp -m conntrack --ctstate INVALID -j DROP
	done
	nx synp sysctl -qw net.netfilter.nf_conntrack_tcp_loose=0
}

# ipt_restore ROUTER iptables-restore|ip6tables-restore RULES: "-t TABLE -A ..."
# lines grouped into one restore per family
ipt_restore() {
	local r=$1 cmd=$2 rules=$3 t
	{
		for t in mangle filter nat; do
			grep -q -- "^-t $t " <<<"$rules" || continue
			echo "*$t"
			grep -- "^-t $t " <<<"$rules" | sed "s/^-t $t //"
			echo COMMIT
		done
	} | nx "$r" "$cmd" --noflush
}

names() {
	local name kind v4 v6 port server dist box hook action arg quote8 silent
	local nat natq v0 v7 v14 q0 q7 q14 hop clean side seen_by desc
	local d=/etc/netns/${PFX}prober
	mkdir -p "$d"
	echo "$d" >>"$ST/etcnetns"
	{
		printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n'
		while read_row; do
			[ "$kind" = range ] && continue
			printf '%s\t%s.lab\n%s\t%s.lab\n' "$v4" "$name" "$v6" "$name"
			if [ "$name" = clean ]; then
				printf '%s\tclean4.lab\n%s\tclean6.lab\n' "$v4" "$v6"
			fi
		done < <(rows)
	} >"$d/hosts"
	# a resolver that fails fast inside the lab (r1 answers port unreachable):
	# no name lookup ever leaves for the host's resolver
	printf 'nameserver 198.18.1.2\noptions timeout:1 attempts:1\n' >"$d/resolv.conf"
}

# start NAME NS CMD...: a daemon in a namespace, pid recorded with start time
start() {
	local what=$1 n=$2 pid
	shift 2
	ip netns exec "$PFX$n" "$@" </dev/null >"$ST/$what.log" 2>&1 &
	pid=$!
	echo "$pid $(pid_start $pid) $what $n" >>"$ST/pids"
}

await() {       # await FILE WHAT: bounded wait for a readiness file
	local f=$1 what=$2 i pid start w n
	for ((i = 0; i < WAIT_STEPS; i++)); do
		[ -e "$f" ] && return 0
		while read -r pid start w n; do
			if [ "$w" = "$what" ] && ! pid_is "$pid" "$start"; then
				log "$what exited before it was ready:"
				cat "$ST/$what.log" >&2
				return 1
			fi
		done <"$ST/pids"
		sleep 0.05
	done
	log "$what not ready after $((WAIT_STEPS / 20)) s"
	return 1
}

daemons() {
	local n r
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 7 \
	    -keyout "$ST/key.pem" -out "$ST/cert.pem" -subj /CN=tls.lab \
	    -addext "subjectAltName=DNS:tls.lab,DNS:*.lab,IP:198.18.100.2,IP:fd00:5ca1:100::2" \
	    >/dev/null 2>&1 || die "openssl could not make the certificate"
	for n in srv srv-nows srv-cookie srv-synp anyip; do
		start "httpd-$n" "$n" "$PY" "$LAB_DIR/httpd.py" --ready "$ST/httpd-$n.ready" \
		    --http 80 --https 443 --cert "$ST/cert.pem" --key "$ST/key.pem"
	done
	if [ "${LAB_NO_MBOX:-0}" = 1 ]; then
		log "LAB_NO_MBOX=1: no middlebox emulator runs; every box case is broken"
	else
		[ -x "$MBOX" ] || die "no emulator at $MBOX (make all)"
		for r in r1 r2 r3 r4 r5; do
			[ -e "$ST/mbox-$r.rules" ] || continue
			start "mbox-$r" "$r" "$MBOX" -q "${r#r}" -f "$ST/mbox-$r.rules" -r "$ST/mbox-$r.ready"
		done
	fi
	for n in srv srv-nows srv-cookie srv-synp anyip; do await "$ST/httpd-$n.ready" "httpd-$n"; done
	for r in r1 r2 r3 r4 r5; do
		[ -e "$ST/mbox-$r.rules" ] && [ "${LAB_NO_MBOX:-0}" != 1 ] || continue
		await "$ST/mbox-$r.ready" "mbox-$r"
	done
}
