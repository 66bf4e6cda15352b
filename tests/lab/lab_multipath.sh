# tests/lab/lab_multipath.sh -- the multipath part of a lab (LAB_MULTIPATH=1
# lab up): router mp spreads flows over equal-cost branches by a hash of the
# 5-tuple with a seed of its own per lab, boxes sit on some branches, the
# targets of multipath.tsv.  Sourced by tests/lab/lab after lab_build.sh
# (link, nx, start, await, icmp_limits); README.md "The multipath lab".
#
#                      .- a: [ma1] hop 3 -- [ma2] hop 4 -.
#   [r1] -- [mp] hop 2 +- b: [mb1]       -- [mb2]       -+- [mj] hop 5 -- [srv-mp] D = 6
#                      '- c: [mc1]       -- [mc2]       -'
#
# The hash: Linux's own multipath routes with L4 hashing
# (fib_multipath_hash_policy=1, IPv4 and IPv6) and a random
# fib_multipath_hash_seed, where the kernel has that sysctl (6.11 on);
# before it the seed is one per boot for every namespace, so a fresh lab
# would keep the old flow -> branch mapping: there mp marks each TCP packet
# with nft's `jhash ... seed` of the 5-tuple and routes the mark to its
# branch (ip rule fwmark -> a table per branch).
#
# env: LAB_MP_HASH=auto|kernel|nft  which of the two (auto: kernel if it can)
#      LAB_MP_SEED=N                this seed, not a random one (replay a run)
#      LAB_MP_SPREAD=l4|l3          l3: hash the addresses only (every flow of a
#                                   target on one branch: per-destination balancing,
#                                   and what the self-test must catch)

MP_TABLE=$LAB_DIR/multipath.tsv
MP_NAMES="mp ma1 ma2 mb1 mb2 mc1 mc2 mj srv-mp"
MP_BRANCHES="a b c"
MP_NET=110                      # targets: 198.18.110.N, fd00:5ca1:110::N
MP_LINK_IN=30                   # r1 <-> mp
declare -A MP_L1=([a]=31 [b]=32 [c]=33)         # mp <-> mX1
declare -A MP_L2=([a]=34 [b]=35 [c]=36)         # mX1 <-> mX2
declare -A MP_L3=([a]=37 [b]=38 [c]=39)         # mX2 <-> mj
declare -A MP_MARK=([a]=1 [b]=2 [c]=3)          # nft mode: mark and table 200+mark
MP_SRV_LINK=40                  # mj <-> srv-mp

mp_on() { [ "${LAB_MULTIPATH:-0}" = 1 ]; }

mp_rows() { grep -v '^#' "$MP_TABLE" | tail -n +2; }

read_mp_row() {
	IFS=$'\t' read -r name kind v4 v6 port server dist branches boxes \
	    v0 v7 v14 hop clean share desc
}

mp_check_env() {
	case ${LAB_MULTIPATH:-0} in 0|1) ;; *) die "LAB_MULTIPATH '$LAB_MULTIPATH': 0 or 1" ;; esac
	case ${LAB_MP_HASH:-auto} in auto|kernel|nft) ;; *) die "LAB_MP_HASH '$LAB_MP_HASH': auto, kernel or nft" ;; esac
	case ${LAB_MP_SPREAD:-l4} in l4|l3) ;; *) die "LAB_MP_SPREAD '$LAB_MP_SPREAD': l4 or l3" ;; esac
	[ -z "${LAB_MP_SEED:-}" ] || [[ $LAB_MP_SEED =~ ^[1-9][0-9]{0,9}$ && $LAB_MP_SEED -le 4294967295 ]] ||
	    die "LAB_MP_SEED '$LAB_MP_SEED': 1..4294967295"
}

# the links, before static_neighbours (lab_build.sh topology)
mp_links() {
	local x
	link r1:mp mp:west $MP_LINK_IN
	for x in $MP_BRANCHES; do
		link "mp:br-$x" "m${x}1:west" "${MP_L1[$x]}"
		link "m${x}1:east" "m${x}2:west" "${MP_L2[$x]}"
		link "m${x}2:east" "mj:br-$x" "${MP_L3[$x]}"
	done
	link mj:srv srv-mp:west $MP_SRV_LINK
}

# a router's forwarding and ICMP sysctls, as the chain's (lab_build.sh)
mp_router() {
	nx "$1" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
	    $(icmp_limits "$1") \
	    net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
}

# rt NS DEST4 DEST6 VIA_LINK END: a route for both families via .END / ::END of a link
mp_route() {
	ip -n "$PFX$1" route add "$2" via "198.18.$4.$5"
	ip -n "$PFX$1" -6 route add "$3" via "fd00:5ca1:$4::$5"
}

# Routes: the targets' prefix forward along every branch to mj and srv-mp;
# everything else (the prober, the links) back the way it came.  mj returns
# through branch a alone, and answers from the link a probe came in on, in
# both families, as most routers do (Linux's IPv6 does by itself; its IPv4
# would take the way back's address): the branches differ at hops 3, 4, 5.
mp_routes() {
	local x net4=198.18.$MP_NET.0/24 net6=fd00:5ca1:$MP_NET::/64
	mp_route r1 "$net4" "$net6" $MP_LINK_IN 2
	mp_route mp 198.18.0.0/15 fd00::/8 $MP_LINK_IN 1
	# an address of the prefix without a target dies at mp, not in a loop with r1
	ip -n "$PFX"mp route add unreachable "$net4"
	ip -n "$PFX"mp -6 route add unreachable "$net6"
	for x in $MP_BRANCHES; do
		mp_route "m${x}1" "$net4" "$net6" "${MP_L2[$x]}" 2
		mp_route "m${x}1" 198.18.0.0/15 fd00::/8 "${MP_L1[$x]}" 1
		mp_route "m${x}2" "$net4" "$net6" "${MP_L3[$x]}" 2
		mp_route "m${x}2" 198.18.0.0/15 fd00::/8 "${MP_L2[$x]}" 1
		mp_router "m${x}1"
		mp_router "m${x}2"
	done
	mp_route mj "$net4" "$net6" $MP_SRV_LINK 2
	mp_route mj 198.18.0.0/15 fd00::/8 "${MP_L3[a]}" 1
	mp_route srv-mp 198.18.0.0/15 fd00::/8 $MP_SRV_LINK 1
	mp_router mp
	mp_router mj
	nx mj sysctl -qw net.ipv4.icmp_errors_use_inbound_ifaddr=1
	nx srv-mp "$PY" "$LAB_DIR/txcsum.py" west
}

# The hash: mode and seed for this lab, set on mp, recorded in $ST/multipath.
mp_hash() {
	local mode=${LAB_MP_HASH:-auto} seed=${LAB_MP_SEED:-} spread=${LAB_MP_SPREAD:-l4} pol=1
	if [ "$mode" = auto ]; then
		if nx mp test -e /proc/sys/net/ipv4/fib_multipath_hash_seed; then mode=kernel; else mode=nft; fi
	fi
	if [ "$mode" = kernel ] && ! nx mp test -e /proc/sys/net/ipv4/fib_multipath_hash_seed; then
		die "LAB_MP_HASH=kernel: this kernel ($(uname -r)) has no fib_multipath_hash_seed (6.11 on)"
	fi
	while [ -z "$seed" ] || [ "$seed" = 0 ]; do
		seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
	done
	[ "$spread" = l3 ] && pol=0
	# the policy matters in nft mode too: non-TCP packets take the routes
	nx mp sysctl -qw net.ipv4.fib_multipath_hash_policy=$pol net.ipv6.fib_multipath_hash_policy=$pol
	[ "$mode" = kernel ] && nx mp sysctl -qw net.ipv4.fib_multipath_hash_seed="$seed"
	MP_MODE=$mode MP_SEED=$seed
	printf 'hash %s\nseed %s\nspread %s\n' "$mode" "$seed" "$spread" >"$ST/multipath"
}

# Targets: addresses on srv-mp, mp's routes to them over their branches (or
# the nft marks and a route per branch), the boxes and their queues.
mp_targets() {
	local name kind v4 v6 port server dist branches boxes v0 v7 v14 hop clean share desc
	local srv="" routes="" nft="" b x h act arg r n nh4 nh6 keys4 keys6
	declare -A IPT4=() IPT6=()
	while read_mp_row; do
		[ "$kind" = multipath ] && [ "$server" = srv-mp ] ||
		    die "multipath.tsv: $name: kind multipath on srv-mp only"
		case $branches in a,b|a,b,c) ;; *) die "multipath.tsv: $name: branches a,b or a,b,c" ;; esac
		srv+="addr add $v4/32 dev lo"$'\n'"addr add $v6/128 dev lo nodad"$'\n'
		n=0 nh4="" nh6=""
		for x in ${branches//,/ }; do
			n=$((n + 1))
			nh4+=" nexthop via 198.18.${MP_L1[$x]}.2 dev br-$x"
			nh6+=" nexthop via fd00:5ca1:${MP_L1[$x]}::2 dev br-$x"
		done
		if [ "$MP_MODE" = kernel ]; then
			routes+="route add $v4/32$nh4"$'\n'"route add $v6/128$nh6"$'\n'
		else
			# non-TCP packets keep to branch a; TCP goes by its mark
			routes+="route add $v4/32 via 198.18.${MP_L1[a]}.2"$'\n'
			routes+="route add $v6/128 via fd00:5ca1:${MP_L1[a]}::2"$'\n'
			keys4="ip saddr . ip daddr" keys6="ip6 saddr . ip6 daddr"
			if [ "${LAB_MP_SPREAD:-l4}" = l4 ]; then
				keys4+=" . tcp sport . tcp dport" keys6+=" . tcp sport . tcp dport"
			fi
			nft+="ip daddr $v4 meta l4proto tcp meta mark set jhash $keys4 mod $n seed $MP_SEED offset 1"$'\n'
			nft+="ip6 daddr $v6 meta l4proto tcp meta mark set jhash $keys6 mod $n seed $MP_SEED offset 1"$'\n'
		fi
		[ "$boxes" = - ] && continue
		for b in ${boxes//,/ }; do
			[[ $b =~ ^([abc])@([34])=([a-z0-9-]+)(:([0-9]+))?$ ]] ||
			    die "multipath.tsv: $name: box '$b' is not BRANCH@HOP=ACTION[:ARG]"
			x=${BASH_REMATCH[1]} h=${BASH_REMATCH[2]} act=${BASH_REMATCH[3]} arg=${BASH_REMATCH[5]}
			[[ ,$branches, == *,$x,* ]] || die "multipath.tsv: $name: box on $x, not one of $branches"
			r=m$x$((h - 2))	# its queue: HOP (mp_daemons)
			printf '%s %s %s\t# %s\n%s %s %s\t# %s\n' "$v4" "$act" "$arg" "$name" \
			    "$v6" "$act" "$arg" "$name" >>"$ST/mbox-$r.rules"
			IPT4[$r]+="-t mangle -A PREROUTING -d $v4/32 -p tcp --tcp-flags SYN,ACK SYN -j NFQUEUE --queue-num $h"$'\n'
			IPT6[$r]+="-t mangle -A PREROUTING -d $v6/128 -p tcp --tcp-flags SYN,ACK SYN -j NFQUEUE --queue-num $h"$'\n'
		done
	done < <(mp_rows)
	printf '%s' "$srv" | ip -n "$PFX"srv-mp -batch -
	printf '%s' "$routes" | ip -n "$PFX"mp -batch -
	if [ "$MP_MODE" = nft ]; then
		for x in $MP_BRANCHES; do
			ip -n "$PFX"mp route add "198.18.$MP_NET.0/24" via "198.18.${MP_L1[$x]}.2" table $((200 + MP_MARK[$x]))
			ip -n "$PFX"mp -6 route add "fd00:5ca1:$MP_NET::/64" via "fd00:5ca1:${MP_L1[$x]}::2" table $((200 + MP_MARK[$x]))
			ip -n "$PFX"mp rule add fwmark "${MP_MARK[$x]}" table $((200 + MP_MARK[$x]))
			ip -n "$PFX"mp -6 rule add fwmark "${MP_MARK[$x]}" table $((200 + MP_MARK[$x]))
		done
		# before routing: mangle priority in prerouting
		printf 'table inet lab-mp {\n chain pre {\n  type filter hook prerouting priority mangle; policy accept;\n%s }\n}\n' \
		    "$nft" | nx mp nft -f -
	fi
	for r in "${!IPT4[@]}"; do
		ipt_restore "$r" iptables-restore "${IPT4[$r]}"
		ipt_restore "$r" ip6tables-restore "${IPT6[$r]}"
	done
}

mp_names() {
	local name kind v4 v6 port server dist branches boxes v0 v7 v14 hop clean share desc
	while read_mp_row; do
		printf '%s\t%s.lab\n%s\t%s.lab\n' "$v4" "$name" "$v6" "$name"
	done < <(mp_rows) >>"/etc/netns/${PFX}prober/hosts"
}

mp_daemons() {
	local r
	start httpd-srv-mp srv-mp "$PY" "$LAB_DIR/httpd.py" --ready "$ST/httpd-srv-mp.ready" \
	    --http 80 --https 443 --cert "$ST/cert.pem" --key "$ST/key.pem"
	if [ "${LAB_NO_MBOX:-0}" != 1 ]; then
		for r in ma1 ma2 mb1 mb2 mc1 mc2; do
			[ -e "$ST/mbox-$r.rules" ] || continue
			start "mbox-$r" "$r" "$MBOX" -q $((${r: -1} + 2)) -f "$ST/mbox-$r.rules" -r "$ST/mbox-$r.ready"
		done
	fi
	await "$ST/httpd-srv-mp.ready" httpd-srv-mp
	for r in ma1 ma2 mb1 mb2 mc1 mc2; do
		[ -e "$ST/mbox-$r.rules" ] && [ "${LAB_NO_MBOX:-0}" != 1 ] || continue
		await "$ST/mbox-$r.ready" "mbox-$r"
	done
}

# mp_hop BRANCH K 4|6: the address hop K answers from on BRANCH's flows
mp_hop_addr() {
	local x=$1 k=$2 f=$3 l
	[[ $x =~ ^[abc]$ ]] || die "mp-hop BRANCH K 4|6: BRANCH a, b or c"
	[[ $f =~ ^[46]$ ]] || die "mp-hop BRANCH K 4|6"
	case $k in
	0) if [ "$f" = 4 ]; then echo 198.18.1.1; else echo fd00:5ca1:1::1; fi; return ;;
	1) l=1 ;;
	2) l=$MP_LINK_IN ;;
	3) l=${MP_L1[$x]} ;;
	4) l=${MP_L2[$x]} ;;
	5) l=${MP_L3[$x]} ;;    # mj, from the link of the branch the probe came by
	*) die "mp-hop BRANCH K 4|6: K in 0..5 (6 is the target)" ;;
	esac
	if [ "$f" = 4 ]; then echo "198.18.$l.2"; else echo "fd00:5ca1:$l::2"; fi
}
