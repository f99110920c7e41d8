/* The DPDK GRO peer inside the bench's own process (benches/gro_dpdk.rs).
 *
 * The peer's source (../shared/bench-peers/dpdk-gro/gro_dpdk.c, path in
 * PEER_SRC) is compiled as it is, its main renamed, so its streams, passes
 * and checks are exactly the ones its own binary times. These entry points
 * let the bench time one pass at a time, alternating with ours: a noisy
 * machine then slows both engines alike instead of whichever ran last.
 * dev/build.rs builds this when pkg-config finds libdpdk and the source exists.
 */
#define main gro_dpdk_peer_main
#include PEER_SRC
#undef main

/* One peer cell: its stream in mbufs, the GRO parameters, the pass. */
struct peer_cell {
	struct stream st;
	struct rte_gro_param prm;
	uint32_t (*pass)(struct stream *, const struct rte_gro_param *,
			 struct rte_mbuf **, uint32_t *);
};

/* rte_eal_init with the peer's arguments, then its mbuf pool: 0 or -1. */
int peer_init(int argc, char **argv)
{
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "rte_eal_init failed: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	pool = rte_pktmbuf_pool_create("gro_pool", NB_MBUF, 256, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	return pool ? 0 : -1;
}

/* The cell the peer's run_cell times (kind 0 tcp4 / 1 vxlan, mode 0
 * unnecessary / 1 verify), after its checked first pass: the stream hash,
 * outputs per pass and grouping signature in *hash, *out, *groups. */
struct peer_cell *peer_cell_new(int kind, uint32_t flows, int mode,
				uint64_t *hash, uint32_t *out, uint64_t *groups)
{
	static struct rte_mbuf *collect[PASS_PKTS];
	struct peer_cell *c = calloc(1, sizeof(*c));
	uint32_t bad;

	if (!c || stream_build(&c->st, kind, flows, PASS_PKTS) != 0)
		return NULL;
	c->prm.gro_types = type_of(kind);
	c->prm.max_flow_num = BURST;
	c->prm.max_item_per_flow = BURST;
	c->pass = mode == M_VERIFY ? pass_verify : pass_plain;
	*hash = stream_hash(&c->st);
	*out = c->pass(&c->st, &c->prm, collect, &bad);
	*groups = groups_sig(collect, *out);
	if (verify_outputs(&c->st, collect, *out) < 0 || bad != 0)
		return NULL;
	stream_reset(&c->st);
	return c;
}

/* One pass (the timed part of the peer's loop): outputs, or UINT32_MAX when
 * a checksum failed. */
uint32_t peer_cell_pass(struct peer_cell *c)
{
	uint32_t bad, out = c->pass(&c->st, &c->prm, NULL, &bad);
	return bad ? UINT32_MAX : out;
}

/* Restores the stream after a pass (untimed, as in the peer). */
void peer_cell_reset(struct peer_cell *c)
{
	stream_reset(&c->st);
}

/* The stream's hash now (must still be the first one), then the cell freed. */
uint64_t peer_cell_free(struct peer_cell *c)
{
	uint64_t h = stream_hash(&c->st);
	stream_free(&c->st);
	free(c);
	return h;
}
