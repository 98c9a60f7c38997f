/* A CTF trace through libbabeltrace2 (source.ctf.fs, filter.utils.muxer, a simple sink) -> ordered rp_sysev (converters/ctf.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "converters/bt2dl.h"
#include "converters/ctf.h"
#include "formats/error.h"

typedef struct reader {
	rp_ctf_emit_fn fn;
	int (*on_clock)(void *ctx, int64_t offset_ns);
	void *ctx;
	rp_ctf_order *order;
	rp_ctf_stats *st;
	const bt_clock_class *clock; /* borrowed: the first event's, for its offset */
	int64_t offset_ns;
	int rc; /* ours (fn's, memory), which babeltrace2's status does not carry */
} reader;

/* The clock class's offset from its origin (the Unix epoch for LTTng) in ns, saturated. */
static int64_t clock_offset(const bt_clock_class *cc)
{
	int64_t sec = 0;
	uint64_t cycles = 0;
	bt_clock_class_get_offset(cc, &sec, &cycles);
	const uint64_t freq = bt_clock_class_get_frequency(cc);
	int64_t ns;
	if (__builtin_mul_overflow(sec, (int64_t)1000000000, &ns))
		return sec < 0 ? INT64_MIN : INT64_MAX;
	/* Whole seconds of cycles, then the rest (below freq, so rest * 10^9 fits while freq is under 18 GHz). */
	uint64_t frac = 0;
	if (freq) {
		const uint64_t whole = cycles / freq, rest = cycles % freq;
		uint64_t scaled;
		const uint64_t rest_ns = __builtin_mul_overflow(rest, (uint64_t)1000000000u, &scaled)
						 ? (uint64_t)((long double)rest * 1e9L / (long double)freq)
						 : scaled / freq;
		if (__builtin_mul_overflow(whole, (uint64_t)1000000000u, &frac) || __builtin_add_overflow(frac, rest_ns, &frac))
			return INT64_MAX;
	}
	int64_t total;
	if (frac > (uint64_t)INT64_MAX || __builtin_add_overflow(ns, (int64_t)frac, &total))
		return INT64_MAX;
	return total;
}

/* A payload field as the decoder sees it. */
static void to_field(const bt_field *f, const char *name, rp_ctf_field *out)
{
	memset(out, 0, sizeof(*out));
	out->name = name;
	const bt_field_class_type t = bt_field_get_class_type(f);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		out->kind = RP_CTF_UINT;
		out->u = bt_field_integer_unsigned_get_value(f);
	} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		out->kind = RP_CTF_SINT;
		out->s = bt_field_integer_signed_get_value(f);
	} else if (t == BT_FIELD_CLASS_TYPE_STRING) {
		out->kind = RP_CTF_STR;
		out->str = bt_field_string_get_value(f);
		out->len = bt_field_string_get_length(f);
	} else {
		out->kind = RP_CTF_OTHER;
	}
}

static int on_event(reader *r, const bt_message *msg)
{
	const bt_event *const ev = bt_message_event_borrow_event_const(msg);
	const char *const name = bt_event_class_get_name(bt_event_borrow_class_const(ev));
	if (!name || strncmp(name, "reprise:", 8) != 0) {
		r->st->other++;
		return 0;
	}
	rp_ctf_field fields[RP_CTF_FIELDS_MAX];
	size_t n = 0;
	const bt_field *const payload = bt_event_borrow_payload_field_const(ev);
	if (payload && bt_field_get_class_type(payload) == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		const bt_field_class *const fc = bt_field_borrow_class_const(payload);
		const uint64_t count = bt_field_class_structure_get_member_count(fc);
		/* Past RP_CTF_FIELDS_MAX: not our provider's layout; what is missing makes the event bad. */
		for (uint64_t i = 0; i < count && n < RP_CTF_FIELDS_MAX; i++) {
			const bt_field_class_structure_member *const m =
				bt_field_class_structure_borrow_member_by_index_const(fc, i);
			to_field(bt_field_structure_borrow_member_field_by_index_const(payload, i),
				 bt_field_class_structure_member_get_name(m), &fields[n++]);
		}
	}
	rp_sysev sev;
	const rp_ctf_verdict v = rp_ctf_decode(name, fields, n, &sev);
	r->st->by_verdict[v]++;
	if (v != RP_CTF_OK) {
		r->st->bad++;
		return 0;
	}
	r->st->events++;

	/* The emission time on the events' clock (CLOCK_MONOTONIC): the snapshot from origin less the offset. */
	uint64_t now = sev.t_end;
	const bt_clock_class *const cc = bt_message_event_borrow_stream_class_default_clock_class_const(msg);
	if (cc) {
		if (!r->clock) {
			r->clock = cc;
			r->offset_ns = clock_offset(cc);
			r->st->have_clock = true;
			r->st->clock_offset_ns = r->offset_ns;
		}
		int64_t origin_ns;
		if (bt_clock_snapshot_get_ns_from_origin(bt_message_event_borrow_default_clock_snapshot_const(msg),
							 &origin_ns) == BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
			int64_t mono;
			if (!__builtin_sub_overflow(origin_ns, r->offset_ns, &mono) && mono >= 0)
				now = (uint64_t)mono;
		}
	}
	if (r->on_clock) {
		const int rc = r->on_clock(r->ctx, r->offset_ns);
		r->on_clock = NULL;
		if (rc < 0)
			return rc;
	}
	return rp_ctf_order_push(r->order, &sev, now);
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it, void *data)
{
	reader *const r = data;
	bt_message_array_const msgs;
	uint64_t count = 0;
	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		const bt_message_type t = bt_message_get_type(msgs[i]);
		uint64_t n = 0;
		if (r->rc == 0 && t == BT_MESSAGE_TYPE_EVENT)
			r->rc = on_event(r, msgs[i]);
		else if (t == BT_MESSAGE_TYPE_DISCARDED_EVENTS)
			/* a count the trace does not know is still a loss: at least one */
			r->st->discarded += bt_message_discarded_events_get_count(msgs[i], &n) == BT_PROPERTY_AVAILABILITY_AVAILABLE ? n : 1;
		else if (t == BT_MESSAGE_TYPE_DISCARDED_PACKETS)
			r->st->discarded_packets +=
				bt_message_discarded_packets_get_count(msgs[i], &n) == BT_PROPERTY_AVAILABILITY_AVAILABLE ? n : 1;
		bt_message_put_ref(msgs[i]);
	}
	return r->rc < 0 ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR
			 : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* babeltrace2's reason for a failure (its error causes, newest first), or what failed. */
static int bt_fail(char *errbuf, int err, const char *path, const char *what)
{
	const bt_error *const e = bt_current_thread_take_error();
	const char *msg = NULL;
	if (e && bt_error_get_cause_count(e) > 0)
		msg = bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0));
	rp_fail(errbuf, err, "%s: %s%s%s", path, what, msg ? ": " : "", msg ? msg : "");
	if (e)
		bt_error_release(e);
	return err;
}

/* The graph: ctf.fs over every trace directory -> muxer (time order across streams) -> our sink. */
static int build(bt_graph *g, const rp_ctf_dirs *dirs, reader *r, const char *path, char *errbuf)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	bt_value *params = NULL;
	int rc = 0;
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &ctf) != BT_PLUGIN_FIND_STATUS_OK ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &utils) != BT_PLUGIN_FIND_STATUS_OK) {
		rc = bt_fail(errbuf, RP_E_UNSUPPORTED, path, "babeltrace2's ctf and utils plugins are not installed");
		goto out;
	}
	const bt_component_class_source *const fs = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	const bt_component_class_filter *const mux = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	if (!fs || !mux) {
		rc = bt_fail(errbuf, RP_E_UNSUPPORTED, path, "no source.ctf.fs or filter.utils.muxer in babeltrace2's plugins");
		goto out;
	}
	params = bt_value_map_create();
	bt_value *inputs = NULL;
	if (!params || bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) != BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < dirs->n; i++)
		if (bt_value_array_append_string_element(inputs, dirs->dir[i]) != BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK) {
			rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
			goto out;
		}
	const bt_component_source *src = NULL;
	const bt_component_filter *mx = NULL;
	const bt_component_sink *sink = NULL;
	if (bt_graph_add_source_component(g, fs, "ctf", params, BT_LOGGING_LEVEL_NONE, &src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		rc = bt_fail(errbuf, RP_E_CORRUPT, path, "not a CTF trace babeltrace2 reads");
		goto out;
	}
	if (bt_graph_add_filter_component(g, mux, "muxer", NULL, BT_LOGGING_LEVEL_NONE, &mx) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_add_simple_sink_component(g, "reprise", NULL, consume, NULL, r, &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		rc = bt_fail(errbuf, RP_E_NOMEM, path, "cannot build babeltrace2's graph");
		goto out;
	}
	/* The muxer adds an input port each time one is connected: port i is free when the source's port i comes. */
	const uint64_t nout = bt_component_source_get_output_port_count(src);
	for (uint64_t i = 0; i < nout; i++) {
		const bt_port_input *const in = bt_component_filter_borrow_input_port_by_index_const(mx, i);
		if (!in || bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, i), in, NULL) !=
				   BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
			rc = bt_fail(errbuf, RP_E_NOMEM, path, "cannot connect babeltrace2's ports");
			goto out;
		}
	}
	if (bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_name_const(mx, "out"),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		rc = bt_fail(errbuf, RP_E_NOMEM, path, "cannot connect babeltrace2's ports");
out:
	bt_value_put_ref(params);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	return rc;
}

int rp_ctf_read(const char *path, rp_ctf_emit_fn fn, int (*on_clock)(void *ctx, int64_t offset_ns), void *ctx,
		rp_ctf_stats *st, char *errbuf)
{
	memset(st, 0, sizeof(*st));
	int rc = rp__bt2_load(errbuf);
	if (rc < 0)
		return rc;
	rp_ctf_dirs dirs;
	rc = rp_ctf_find_traces(path, &dirs, errbuf);
	if (rc < 0)
		return rc;
	st->traces = dirs.n;
	reader r = { .fn = fn, .on_clock = on_clock, .ctx = ctx, .st = st };
	bt_graph *const g = bt_graph_create(0);
	if (!g || rp_ctf_order_create(&r.order, fn, ctx, 0, 0) < 0) {
		rc = rp_fail(errbuf, RP_E_NOMEM, "out of memory");
		goto out;
	}
	if ((rc = build(g, &dirs, &r, path, errbuf)) < 0)
		goto out;
	bt_graph_run_status s;
	while ((s = bt_graph_run(g)) == BT_GRAPH_RUN_STATUS_AGAIN)
		;
	if (r.rc < 0) {
		bt_current_thread_clear_error(); /* ours stopped the graph: errbuf already has it */
		rc = r.rc;
		goto out;
	}
	if (s != BT_GRAPH_RUN_STATUS_OK) {
		rc = bt_fail(errbuf, s == BT_GRAPH_RUN_STATUS_MEMORY_ERROR ? RP_E_NOMEM : RP_E_CORRUPT, path,
			     "babeltrace2 could not read the trace");
		goto out;
	}
	if (r.on_clock && (rc = on_clock(ctx, 0)) < 0) /* no reprise event: no clock seen */
		goto out;
	rc = rp_ctf_order_flush(r.order);
	st->late = rp_ctf_order_late(r.order);
out:
	if (r.order && rc == 0)
		st->late = rp_ctf_order_late(r.order);
	rp_ctf_order_destroy(r.order);
	bt_graph_put_ref(g);
	rp_ctf_dirs_free(&dirs);
	return rc;
}
