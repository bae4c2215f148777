// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tool_event.c - MPI_T event sources and events (MPI 4.0 15.3.8).
 *
 * One source, the process clock (CLOCK_MONOTONIC in nanoseconds, the
 * clock of MPI_Wtime), and no event types yet: so no index names an event
 * and no registration or instance can exist, and every call on one says
 * so with the class the standard gives.
 */
#include <stdint.h>

#include "tool_impl.h"

#define NR_SOURCES	1

MPIRMA_TOOL_GET_NUM(source, NR_SOURCES)

int PMPI_T_source_get_info(int source_index, char *name, int *name_len,
			   char *desc, int *desc_len,
			   MPI_T_source_order *ordering,
			   MPI_Count *ticks_per_second, MPI_Count *max_ticks,
			   MPI_Info *info)
{
	MPIRMA_TOOL_ENTER();
	if (source_index < 0 || source_index >= NR_SOURCES)
		return MPI_T_ERR_INVALID_INDEX;
	mpirma_tool_string("mpirma_clock", name, name_len);
	mpirma_tool_string("the process clock: CLOCK_MONOTONIC in "
			   "nanoseconds, the clock of MPI_Wtime", desc,
			   desc_len);
	MPIRMA_TOOL_OUT(ordering, MPI_T_SOURCE_ORDERED);
	MPIRMA_TOOL_OUT(ticks_per_second, 1000000000);
	MPIRMA_TOOL_OUT(max_ticks, INT64_MAX);
	/* no hints to give */
	MPIRMA_TOOL_OUT(info, MPI_INFO_NULL);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_source_get_info)

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
	MPIRMA_TOOL_ENTER();
	if (source_index < 0 || source_index >= NR_SOURCES)
		return MPI_T_ERR_INVALID_INDEX;
	if (!timestamp)
		return MPI_T_ERR_INVALID;
	*timestamp = (MPI_Count)mpirma_clock_ns();
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(T_source_get_timestamp)

/* ------------------------------------------------------------ events */

MPIRMA_TOOL_GET_NUM(event, 0)

int PMPI_T_event_get_info(int event_index, char *name, int *name_len,
			  int *verbosity, MPI_Datatype array_of_datatypes[],
			  MPI_Aint array_of_displacements[],
			  int *num_elements, MPI_T_enum *enumtype,
			  MPI_Info *info, char *desc, int *desc_len,
			  int *bind)
{
	(void)event_index, (void)name, (void)name_len, (void)verbosity;
	(void)array_of_datatypes, (void)array_of_displacements;
	(void)num_elements, (void)enumtype, (void)info, (void)desc;
	(void)desc_len, (void)bind;
	MPIRMA_TOOL_ENTER();
	return MPI_T_ERR_INVALID_INDEX;
}
MPIRMA_ALIAS(T_event_get_info)

int PMPI_T_event_get_index(const char *name, int *event_index)
{
	MPIRMA_TOOL_ENTER();
	if (!name || !event_index)
		return MPI_T_ERR_INVALID;
	return MPI_T_ERR_INVALID_NAME;
}
MPIRMA_ALIAS(T_event_get_index)

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle,
			      MPI_Info info,
			      MPI_T_event_registration *event_registration)
{
	(void)event_index, (void)obj_handle, (void)info;
	MPIRMA_TOOL_ENTER();
	MPIRMA_TOOL_OUT(event_registration, MPI_T_EVENT_REGISTRATION_NULL);
	return MPI_T_ERR_INVALID_INDEX;
}
MPIRMA_ALIAS(T_event_handle_alloc)

/*
 * The calls on a registration or an instance: none can exist, so each is
 * MPI_T_ERR_INVALID_HANDLE once the interface is initialized.
 */
#define NO_HANDLE(name, params, ...)					\
int PMPI_T_##name params						\
{									\
	__VA_ARGS__;							\
	MPIRMA_TOOL_ENTER();						\
	return MPI_T_ERR_INVALID_HANDLE;				\
}									\
MPIRMA_ALIAS(T_##name)

NO_HANDLE(event_handle_set_info,
	  (MPI_T_event_registration event_registration, MPI_Info info),
	  (void)event_registration, (void)info)
NO_HANDLE(event_handle_get_info,
	  (MPI_T_event_registration event_registration, MPI_Info *info_used),
	  (void)event_registration, (void)info_used)
NO_HANDLE(event_register_callback,
	  (MPI_T_event_registration event_registration,
	   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
	   MPI_T_event_cb_function *event_cb_function),
	  (void)event_registration, (void)cb_safety, (void)info,
	  (void)user_data, (void)event_cb_function)
NO_HANDLE(event_callback_set_info,
	  (MPI_T_event_registration event_registration,
	   MPI_T_cb_safety cb_safety, MPI_Info info),
	  (void)event_registration, (void)cb_safety, (void)info)
NO_HANDLE(event_callback_get_info,
	  (MPI_T_event_registration event_registration,
	   MPI_T_cb_safety cb_safety, MPI_Info *info_used),
	  (void)event_registration, (void)cb_safety, (void)info_used)
NO_HANDLE(event_handle_free,
	  (MPI_T_event_registration event_registration, void *user_data,
	   MPI_T_event_free_cb_function *free_cb_function),
	  (void)event_registration, (void)user_data, (void)free_cb_function)
NO_HANDLE(event_set_dropped_handler,
	  (MPI_T_event_registration event_registration,
	   MPI_T_event_dropped_cb_function *dropped_cb_function),
	  (void)event_registration, (void)dropped_cb_function)
NO_HANDLE(event_read,
	  (MPI_T_event_instance event_instance, int element_index,
	   void *buffer),
	  (void)event_instance, (void)element_index, (void)buffer)
NO_HANDLE(event_copy, (MPI_T_event_instance event_instance, void *buffer),
	  (void)event_instance, (void)buffer)
NO_HANDLE(event_get_timestamp,
	  (MPI_T_event_instance event_instance, MPI_Count *event_timestamp),
	  (void)event_instance, (void)event_timestamp)
NO_HANDLE(event_get_source,
	  (MPI_T_event_instance event_instance, int *source_index),
	  (void)event_instance, (void)source_index)
