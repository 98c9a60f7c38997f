/*
 * libbabeltrace2, opened when a CTF trace is first read (bt2dl.c): the
 * functions ctf.c calls, taken by dlsym into one table, their names turned
 * into the table's entries so ctf.c reads as plain libbabeltrace2.  Linking
 * it would load it with glib and pcre2 at every start of reprise (0.9 ms of
 * CPU each time, docs/BENCHMARKS.md).  (bt_field_class_type_is is an inline
 * function of the headers: no symbol to look up.)
 */
#ifndef REPRISE_CONVERTERS_BT2DL_H
#define REPRISE_CONVERTERS_BT2DL_H

#include <babeltrace2/babeltrace.h>

#include "formats/dynlib.h"

#define RP_BT2_FUNCS(X, T) \
	X(T, bt_clock_class_get_frequency)                                            \
	X(T, bt_clock_class_get_offset)                                               \
	X(T, bt_clock_snapshot_get_ns_from_origin)                                    \
	X(T, bt_component_filter_borrow_input_port_by_index_const)                    \
	X(T, bt_component_filter_borrow_output_port_by_name_const)                    \
	X(T, bt_component_sink_borrow_input_port_by_index_const)                      \
	X(T, bt_component_source_borrow_output_port_by_index_const)                   \
	X(T, bt_component_source_get_output_port_count)                               \
	X(T, bt_current_thread_clear_error)                                           \
	X(T, bt_current_thread_take_error)                                            \
	X(T, bt_error_borrow_cause_by_index)                                          \
	X(T, bt_error_cause_get_message)                                              \
	X(T, bt_error_get_cause_count)                                                \
	X(T, bt_error_release)                                                        \
	X(T, bt_event_borrow_class_const)                                             \
	X(T, bt_event_borrow_payload_field_const)                                     \
	X(T, bt_event_class_get_name)                                                 \
	X(T, bt_field_borrow_class_const)                                             \
	X(T, bt_field_class_structure_borrow_member_by_index_const)                   \
	X(T, bt_field_class_structure_get_member_count)                               \
	X(T, bt_field_class_structure_member_get_name)                                \
	X(T, bt_field_get_class_type)                                                 \
	X(T, bt_field_integer_signed_get_value)                                       \
	X(T, bt_field_integer_unsigned_get_value)                                     \
	X(T, bt_field_string_get_length)                                              \
	X(T, bt_field_string_get_value)                                               \
	X(T, bt_field_structure_borrow_member_field_by_index_const)                   \
	X(T, bt_graph_add_filter_component)                                           \
	X(T, bt_graph_add_simple_sink_component)                                      \
	X(T, bt_graph_add_source_component)                                           \
	X(T, bt_graph_connect_ports)                                                  \
	X(T, bt_graph_create)                                                         \
	X(T, bt_graph_put_ref)                                                        \
	X(T, bt_graph_run)                                                            \
	X(T, bt_message_discarded_events_get_count)                                   \
	X(T, bt_message_discarded_packets_get_count)                                  \
	X(T, bt_message_event_borrow_default_clock_snapshot_const)                    \
	X(T, bt_message_event_borrow_event_const)                                     \
	X(T, bt_message_event_borrow_stream_class_default_clock_class_const)          \
	X(T, bt_message_get_type)                                                     \
	X(T, bt_message_iterator_next)                                                \
	X(T, bt_message_put_ref)                                                      \
	X(T, bt_plugin_borrow_filter_component_class_by_name_const)                   \
	X(T, bt_plugin_borrow_source_component_class_by_name_const)                   \
	X(T, bt_plugin_find)                                                          \
	X(T, bt_plugin_put_ref)                                                       \
	X(T, bt_value_array_append_string_element)                                    \
	X(T, bt_value_map_create)                                                     \
	X(T, bt_value_map_insert_empty_array_entry)                                   \
	X(T, bt_value_put_ref)                                                        \

	/* end */

typedef struct rp_bt2_api {
	RP_BT2_FUNCS(RP_DYNLIB_FIELD, _)
} rp_bt2_api;

/* The table, filled once by rp__bt2_load: process-wide, as the library it stands for is. */
extern rp_bt2_api rp__bt2;

/* Open libbabeltrace2 and fill rp__bt2 (once; later calls return what the first did): 0, or RP_E_UNSUPPORTED with why. */
int rp__bt2_load(char *errbuf);

/* From here on, the libbabeltrace2 names are the table's (except in bt2dl.c, which fills it). */
#ifndef RP_BT2DL_IMPL
#define bt_clock_class_get_frequency rp__bt2.bt_clock_class_get_frequency
#define bt_clock_class_get_offset rp__bt2.bt_clock_class_get_offset
#define bt_clock_snapshot_get_ns_from_origin rp__bt2.bt_clock_snapshot_get_ns_from_origin
#define bt_component_filter_borrow_input_port_by_index_const rp__bt2.bt_component_filter_borrow_input_port_by_index_const
#define bt_component_filter_borrow_output_port_by_name_const rp__bt2.bt_component_filter_borrow_output_port_by_name_const
#define bt_component_sink_borrow_input_port_by_index_const rp__bt2.bt_component_sink_borrow_input_port_by_index_const
#define bt_component_source_borrow_output_port_by_index_const rp__bt2.bt_component_source_borrow_output_port_by_index_const
#define bt_component_source_get_output_port_count rp__bt2.bt_component_source_get_output_port_count
#define bt_current_thread_clear_error rp__bt2.bt_current_thread_clear_error
#define bt_current_thread_take_error rp__bt2.bt_current_thread_take_error
#define bt_error_borrow_cause_by_index rp__bt2.bt_error_borrow_cause_by_index
#define bt_error_cause_get_message rp__bt2.bt_error_cause_get_message
#define bt_error_get_cause_count rp__bt2.bt_error_get_cause_count
#define bt_error_release rp__bt2.bt_error_release
#define bt_event_borrow_class_const rp__bt2.bt_event_borrow_class_const
#define bt_event_borrow_payload_field_const rp__bt2.bt_event_borrow_payload_field_const
#define bt_event_class_get_name rp__bt2.bt_event_class_get_name
#define bt_field_borrow_class_const rp__bt2.bt_field_borrow_class_const
#define bt_field_class_structure_borrow_member_by_index_const rp__bt2.bt_field_class_structure_borrow_member_by_index_const
#define bt_field_class_structure_get_member_count rp__bt2.bt_field_class_structure_get_member_count
#define bt_field_class_structure_member_get_name rp__bt2.bt_field_class_structure_member_get_name
#define bt_field_get_class_type rp__bt2.bt_field_get_class_type
#define bt_field_integer_signed_get_value rp__bt2.bt_field_integer_signed_get_value
#define bt_field_integer_unsigned_get_value rp__bt2.bt_field_integer_unsigned_get_value
#define bt_field_string_get_length rp__bt2.bt_field_string_get_length
#define bt_field_string_get_value rp__bt2.bt_field_string_get_value
#define bt_field_structure_borrow_member_field_by_index_const rp__bt2.bt_field_structure_borrow_member_field_by_index_const
#define bt_graph_add_filter_component rp__bt2.bt_graph_add_filter_component
#define bt_graph_add_simple_sink_component rp__bt2.bt_graph_add_simple_sink_component
#define bt_graph_add_source_component rp__bt2.bt_graph_add_source_component
#define bt_graph_connect_ports rp__bt2.bt_graph_connect_ports
#define bt_graph_create rp__bt2.bt_graph_create
#define bt_graph_put_ref rp__bt2.bt_graph_put_ref
#define bt_graph_run rp__bt2.bt_graph_run
#define bt_message_discarded_events_get_count rp__bt2.bt_message_discarded_events_get_count
#define bt_message_discarded_packets_get_count rp__bt2.bt_message_discarded_packets_get_count
#define bt_message_event_borrow_default_clock_snapshot_const rp__bt2.bt_message_event_borrow_default_clock_snapshot_const
#define bt_message_event_borrow_event_const rp__bt2.bt_message_event_borrow_event_const
#define bt_message_event_borrow_stream_class_default_clock_class_const rp__bt2.bt_message_event_borrow_stream_class_default_clock_class_const
#define bt_message_get_type rp__bt2.bt_message_get_type
#define bt_message_iterator_next rp__bt2.bt_message_iterator_next
#define bt_message_put_ref rp__bt2.bt_message_put_ref
#define bt_plugin_borrow_filter_component_class_by_name_const rp__bt2.bt_plugin_borrow_filter_component_class_by_name_const
#define bt_plugin_borrow_source_component_class_by_name_const rp__bt2.bt_plugin_borrow_source_component_class_by_name_const
#define bt_plugin_find rp__bt2.bt_plugin_find
#define bt_plugin_put_ref rp__bt2.bt_plugin_put_ref
#define bt_value_array_append_string_element rp__bt2.bt_value_array_append_string_element
#define bt_value_map_create rp__bt2.bt_value_map_create
#define bt_value_map_insert_empty_array_entry rp__bt2.bt_value_map_insert_empty_array_entry
#define bt_value_put_ref rp__bt2.bt_value_put_ref
#endif

#endif
