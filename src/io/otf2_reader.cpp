// OTF2 archive -> Trace with local (per-location) event readers. See otf2_reader.hpp.
//
// How the Score-P 8 specifics are modelled:
// - CommCreate / CommDestroy events are kept as events (ref = communicator);
// - MpiCollectiveBegin/End with CREATE_HANDLE / DESTROY_HANDLE (around MPI_Init, MPI_Finalize,
//   MPI_Comm_split, ...) are ordinary collective records of class Management: they form
//   collective instances on their communicator like any other operation;
// - a receive time-stamped before its send (clock skew) keeps its match and is reported as the
//   ReceiveBeforeSend anomaly; analyses clamp the negative transfer time (see src/trace/README.md, anomalies);
// - ProgramBegin/ProgramEnd are events; the program name and its arguments become
//   Definitions::program_name and program_arguments.
#include "wisp/io/otf2_reader.hpp"

#include <otf2/OTF2_Pthread_Locks.h>
#include <otf2/otf2.h>

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>

#include "anchor_probe.hpp"
#include "otf2_attributes.hpp"
#include "otf2_definitions.hpp"
#include "otf2_errors.hpp"
#include "otf2_metrics.hpp"
#include "otf2_other_locations.hpp"
#include "otf2_rma_records.hpp"
#include "otf2_thread_records.hpp"
#include "parallel_ranks.hpp"
#include "wisp/error.hpp"
#include "wisp/trace/builder.hpp"

namespace wisp {

namespace fs = std::filesystem;
using io::ArchiveDefinitions;
using io::Otf2ErrorScope;

fs::path resolve_anchor(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error(path.string() + ": no such file or directory");
  if (!fs::is_directory(path, ec)) return path;
  if (fs::exists(path / "traces.otf2", ec)) return path / "traces.otf2";
  fs::path found;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.path().extension() != ".otf2") continue;
    if (!found.empty()) throw Error(path.string() + ": holds several OTF2 anchor files; name one of them");
    found = entry.path();
  }
  if (found.empty()) throw Error(path.string() + ": no OTF2 anchor file (*.otf2) in this directory");
  return found;
}

namespace {

// Records wisp does not model, counted by kind (index into kSkippedNames).
enum Skipped : int {
  kBufferFlush,
  kMeasurementOnOff,
  kMetric,
  kParameter,
  kOpenMP,
  kThread,
  kRma,
  kIo,
  kCallingContext,
  kNonBlockingCollective,
  kUnknownRecord,
  kAttributes,
  kUnknownComm,
  kSkippedCount
};
constexpr std::array<const char*, kSkippedCount> kSkippedNames{"BufferFlush",
                                                               "MeasurementOnOff",
                                                               "Metric",
                                                               "Parameter*",
                                                               "Omp*",
                                                               "Thread*",
                                                               "Rma*",
                                                               "Io*",
                                                               "CallingContext*",
                                                               "NonBlockingCollective*",
                                                               "unknown record",
                                                               "attribute value of a kind wisp does not keep",
                                                               "MPI record on a non-MPI communicator"};

struct LocationReader {
  RankBuilder* rank;
  const ArchiveDefinitions* archive;
  std::array<std::uint64_t, kSkippedCount> skipped{};
  std::string program_name;
  std::vector<std::string> program_arguments;
  io::ThreadRecordSink threads;           // the master's fork/join, team, lock and task records
  MetricSamples metrics;                  // the master's counter samples
  io::RmaRecordSink rma;                  // the master's RMA records
  io::AttributeSink attributes;           // the attribute lists of the master's kept records
  OTF2_AttributeList* pending = nullptr;  // the current record's list, if it has one
  std::uint64_t events_before = 0;        // the rank's events before the current record
};

LocationReader& ctx(void* user) { return *static_cast<LocationReader*>(user); }

// Clock::to_seconds inline (the same arithmetic, so the same doubles): it runs for every event.
double seconds(const LocationReader& r, OTF2_TimeStamp t) {
  const Clock& clock = r.archive->defs.clock;
  return static_cast<double>(static_cast<std::int64_t>(t - clock.global_offset)) /
         static_cast<double>(clock.ticks_per_second);
}

// The reader of a record's location, noting the record's attribute list for kept().
LocationReader& record(void* user, OTF2_AttributeList* attributes) {
  LocationReader& r = ctx(user);
  r.pending = attributes && OTF2_AttributeList_GetNumberOfElements(attributes) > 0 ? attributes : nullptr;
  if (r.pending) r.events_before = r.rank->event_count();
  return r;
}

// Ends a master record's callback: its attribute list is kept with the event it became (the last
// one pushed); a record that became no event (an ignored leave) takes its list with it.
OTF2_CallbackCode kept(LocationReader& r) {
  if (r.pending && r.rank->event_count() > r.events_before)
    r.attributes.keep(AttributedTable::Event, r.rank->event_count() - 1, r.pending);
  return OTF2_CALLBACK_SUCCESS;
}

RegionId region(const LocationReader& r, OTF2_RegionRef ref) {
  return ref < r.archive->region.size() ? r.archive->region[ref] : kNone;
}

// The MPI communicator of a record; kNone (counted as skipped) if it is not one.
CommId communicator(LocationReader& r, OTF2_CommRef ref) {
  const CommId comm = ref < r.archive->comm.size() ? r.archive->comm[ref] : kNone;
  if (comm == kNone) ++r.skipped[kUnknownComm];
  return comm;
}

struct Peer {
  CommId comm = kNone;
  Rank rank = kNone;  // global
};

// Communicator and global peer rank of a point-to-point record; none if not an MPI comm.
std::optional<Peer> peer_of(LocationReader& r, OTF2_CommRef comm_ref, uint32_t local) {
  Peer p;
  p.comm = communicator(r, comm_ref);
  if (p.comm == kNone) return std::nullopt;
  p.rank = global_rank(r.archive->defs.comms[p.comm], local, r.rank->rank());
  if (p.rank == kNone) {
    ++r.skipped[kUnknownComm];
    return std::nullopt;
  }
  return p;
}

template <int Kind, typename... Rest>
OTF2_CallbackCode skip(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* user, OTF2_AttributeList*, Rest...) {
  ++ctx(user).skipped[Kind];
  return OTF2_CALLBACK_SUCCESS;
}

// Installs skip<Kind> with the argument list the setter's callback type demands.
template <int Kind, typename... Rest>
void skip_with(OTF2_ErrorCode (*setter)(OTF2_EvtReaderCallbacks*,
                                        OTF2_CallbackCode (*)(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void*,
                                                              OTF2_AttributeList*, Rest...)),
               OTF2_EvtReaderCallbacks* cb) {
  setter(cb, &skip<Kind, Rest...>);
}

// A counter sample of the master: kept before the event that follows it (at that event's time when
// strictly synchronous); one wisp cannot keep is counted.
OTF2_CallbackCode on_metric(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* attributes,
                            OTF2_MetricRef metric, uint8_t n, const OTF2_Type* types, const OTF2_MetricValue* values) {
  LocationReader& r = record(user, attributes);
  if (!io::keep_metric(*r.archive, r.metrics, seconds(r, t), static_cast<EventIndex>(r.rank->event_count()), metric, n,
                       types, values))
    ++r.skipped[kMetric];
  else
    r.attributes.keep(AttributedTable::MetricSample, r.metrics.samples.size() - 1, r.pending);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_unknown(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* user, OTF2_AttributeList*) {
  ++ctx(user).skipped[kUnknownRecord];
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_program_begin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                                   OTF2_StringRef name, uint32_t n, const OTF2_StringRef* arguments) {
  auto& r = record(user, a);
  if (name < r.archive->strings.size()) r.program_name = r.archive->strings[name];
  r.program_arguments.clear();
  for (uint32_t i = 0; i < n; ++i)
    r.program_arguments.push_back(arguments[i] < r.archive->strings.size() ? r.archive->strings[arguments[i]] : "");
  r.rank->program_begin(seconds(r, t));
  return kept(r);
}

OTF2_CallbackCode on_program_end(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                                 int64_t) {
  auto& r = record(user, a);
  r.rank->program_end(seconds(r, t));
  return kept(r);
}

// Enter and Leave: the region's wisp id; a reference the definitions do not have stops the read.
template <auto Method>
OTF2_CallbackCode on_region(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                            OTF2_RegionRef ref) {
  auto& r = record(user, a);
  const RegionId id = region(r, ref);
  if (id == kNone) return OTF2_CALLBACK_INTERRUPT;
  (r.rank->*Method)(seconds(r, t), id);
  return kept(r);
}

// The point-to-point records, one OTF2 callback each (OTF2 calls them through C function pointers
// of the record's signature): each calls the RankBuilder method of its record, with the peer
// resolved to its global rank and communicator.
template <auto Method>
OTF2_CallbackCode on_message(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                             uint32_t peer_local, OTF2_CommRef comm_ref, uint32_t tag, uint64_t bytes) {
  auto& r = record(user, a);
  if (const auto peer = peer_of(r, comm_ref, peer_local))
    (r.rank->*Method)(seconds(r, t), peer->rank, peer->comm, static_cast<std::int32_t>(tag), bytes);
  return kept(r);
}

// Isend and Irecv: a message with its request.
template <auto Method>
OTF2_CallbackCode on_request_message(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                                     uint32_t peer_local, OTF2_CommRef comm_ref, uint32_t tag, uint64_t bytes,
                                     uint64_t request) {
  auto& r = record(user, a);
  if (const auto peer = peer_of(r, comm_ref, peer_local))
    (r.rank->*Method)(seconds(r, t), peer->rank, peer->comm, static_cast<std::int32_t>(tag), bytes, request);
  return kept(r);
}

// IsendComplete, IrecvRequest, RequestTest, RequestCancelled: a request alone.
template <auto Method>
OTF2_CallbackCode on_request(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                             uint64_t request) {
  auto& r = record(user, a);
  (r.rank->*Method)(seconds(r, t), request);
  return kept(r);
}

OTF2_CallbackCode on_collective_begin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a) {
  auto& r = record(user, a);
  r.rank->collective_begin(seconds(r, t));
  return kept(r);
}

OTF2_CallbackCode on_collective_end(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                                    OTF2_CollectiveOp op, OTF2_CommRef comm_ref, uint32_t root, uint64_t sent,
                                    uint64_t received) {
  auto& r = record(user, a);
  const CommId comm = communicator(r, comm_ref);
  Rank global_root = kNone;
  if (comm != kNone && root != OTF2_UNDEFINED_UINT32 && root < OTF2_COLLECTIVE_ROOT_THIS_GROUP)
    global_root = global_rank(r.archive->defs.comms[comm], root, r.rank->rank());
  const auto wisp_op =
      op < kCollectiveOpCount ? static_cast<CollectiveOp>(op) : CollectiveOp::DestroyHandleAndDeallocate;
  r.rank->collective_end(seconds(r, t), wisp_op, comm, global_root, sent, received);
  return kept(r);
}

OTF2_CallbackCode on_comm_create(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                                 OTF2_CommRef comm_ref) {
  auto& r = record(user, a);
  if (const CommId comm = communicator(r, comm_ref); comm != kNone) r.rank->comm_create(seconds(r, t), comm);
  return kept(r);
}

OTF2_CallbackCode on_comm_destroy(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                                  OTF2_CommRef comm_ref) {
  auto& r = record(user, a);
  if (const CommId comm = communicator(r, comm_ref); comm != kNone) r.rank->comm_destroy(seconds(r, t), comm);
  return kept(r);
}

// One registration per OTF2 event record: a flat list, longer than 50 lines on purpose.
OTF2_EvtReaderCallbacks* make_event_callbacks() {
  OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cb, on_program_begin);
  OTF2_EvtReaderCallbacks_SetProgramEndCallback(cb, on_program_end);
  OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_region<&RankBuilder::enter>);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_region<&RankBuilder::leave>);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_message<&RankBuilder::send>);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_request_message<&RankBuilder::isend>);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_request<&RankBuilder::isend_complete>);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_request<&RankBuilder::irecv_request>);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, on_request_message<&RankBuilder::irecv>);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_message<&RankBuilder::recv>);
  OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, on_request<&RankBuilder::request_test>);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, on_request<&RankBuilder::request_cancelled>);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_collective_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_collective_end);
  OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, on_comm_create);
  OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, on_comm_destroy);
  OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, on_unknown);

  skip_with<kBufferFlush>(OTF2_EvtReaderCallbacks_SetBufferFlushCallback, cb);
  skip_with<kMeasurementOnOff>(OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback, cb);
  OTF2_EvtReaderCallbacks_SetMetricCallback(cb, on_metric);
  skip_with<kParameter>(OTF2_EvtReaderCallbacks_SetParameterStringCallback, cb);
  skip_with<kParameter>(OTF2_EvtReaderCallbacks_SetParameterIntCallback, cb);
  skip_with<kParameter>(OTF2_EvtReaderCallbacks_SetParameterUnsignedIntCallback, cb);
  skip_with<kOpenMP>(OTF2_EvtReaderCallbacks_SetOmpForkCallback, cb);
  skip_with<kOpenMP>(OTF2_EvtReaderCallbacks_SetOmpJoinCallback, cb);
  skip_with<kOpenMP>(OTF2_EvtReaderCallbacks_SetOmpAcquireLockCallback, cb);
  skip_with<kOpenMP>(OTF2_EvtReaderCallbacks_SetOmpReleaseLockCallback, cb);
  skip_with<kOpenMP>(OTF2_EvtReaderCallbacks_SetOmpTaskCreateCallback, cb);
  skip_with<kOpenMP>(OTF2_EvtReaderCallbacks_SetOmpTaskSwitchCallback, cb);
  skip_with<kOpenMP>(OTF2_EvtReaderCallbacks_SetOmpTaskCompleteCallback, cb);
  io::set_thread_record_callbacks<LocationReader>(cb);
  skip_with<kThread>(OTF2_EvtReaderCallbacks_SetThreadCreateCallback, cb);
  skip_with<kThread>(OTF2_EvtReaderCallbacks_SetThreadBeginCallback, cb);
  skip_with<kThread>(OTF2_EvtReaderCallbacks_SetThreadWaitCallback, cb);
  skip_with<kThread>(OTF2_EvtReaderCallbacks_SetThreadEndCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaTryLockCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaSyncCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaWaitChangeCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaPutCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaGetCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaAtomicCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaOpTestCallback, cb);
  skip_with<kRma>(OTF2_EvtReaderCallbacks_SetRmaOpCompleteRemoteCallback, cb);
  io::set_rma_record_callbacks<LocationReader>(cb);  // the kinds wisp keeps
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoCreateHandleCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoDestroyHandleCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoDuplicateHandleCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoSeekCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoChangeStatusFlagsCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoDeleteFileCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoOperationBeginCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoOperationTestCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoOperationIssuedCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoOperationCompleteCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoOperationCancelledCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoAcquireLockCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoReleaseLockCallback, cb);
  skip_with<kIo>(OTF2_EvtReaderCallbacks_SetIoTryLockCallback, cb);
  skip_with<kCallingContext>(OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback, cb);
  skip_with<kCallingContext>(OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback, cb);
  skip_with<kCallingContext>(OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback, cb);
  skip_with<kNonBlockingCollective>(OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback, cb);
  skip_with<kNonBlockingCollective>(OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback, cb);
  return cb;
}

// Owns the OTF2_Reader for the duration of a read.
struct ReaderHandle {
  OTF2_Reader* reader;
  ~ReaderHandle() {
    if (reader) OTF2_Reader_Close(reader);
  }
};

void read_local_definitions(OTF2_Reader* reader, const ArchiveDefinitions& archive, RankShare share,
                            const std::string& where, const Otf2ErrorScope& scope) {
  // Local definitions hold the mapping tables and clock offsets the event readers apply.
  io::check_otf2(OTF2_Reader_OpenDefFiles(reader), where + ": cannot open local definitions", scope);
  for (std::uint64_t location : io::locations_to_read(archive, share)) {
    OTF2_DefReader* defs = OTF2_Reader_GetDefReader(reader, location);
    if (!defs) continue;  // no local definition file: nothing to map
    uint64_t n = 0;
    io::check_otf2(OTF2_Reader_ReadAllLocalDefinitions(reader, defs, &n),
                   fmt::format("{}: corrupt local definitions of location {}", where, location), scope);
    OTF2_Reader_CloseDefReader(reader, defs);
  }
  OTF2_Reader_CloseDefFiles(reader);
}

// What reading one rank yields besides its events (kept in its RankBuilder).
struct RankRead {
  std::array<std::uint64_t, kSkippedCount> skipped{};
  std::string program;
  std::vector<std::string> program_arguments;
  std::vector<ThreadRecord> thread_records;  // the master's
  MetricSamples metrics;                     // the master's
  std::vector<RmaRecord> rma_records;        // the master's
  LocationAttributes attributes;             // the master's
};

// What every reading thread shares, read-only.
struct EventReading {
  OTF2_Reader* reader;
  OTF2_EvtReaderCallbacks* callbacks;
  const ArchiveDefinitions& archive;
  const std::string& where;
  const Otf2ErrorScope& scope;
};

// Reads a location's events in chunks, so that its thread stops soon once a lower rank has failed.
OTF2_ErrorCode read_events(OTF2_Reader* reader, OTF2_EvtReader* events, const io::RankStop& stop, uint64_t& read) {
  constexpr uint64_t kChunk = 1 << 16;
  for (;;) {
    uint64_t n = 0;
    const OTF2_ErrorCode status = OTF2_Reader_ReadLocalEvents(reader, events, kChunk, &n);
    read += n;
    if (status != OTF2_SUCCESS || n < kChunk || stop.requested()) return status;
  }
}

// The events to reserve room for: as many as the definitions declare, but never more than the
// event file has bytes (every record takes at least one), so that a corrupt count cannot make the
// reader commit memory the trace does not need (RankBuilder::reserve faults the pages in).
std::uint64_t events_to_reserve(const std::string& anchor, std::uint64_t location, std::uint64_t declared) {
  const fs::path file = fs::path(anchor).parent_path() / fs::path(anchor).stem() / (std::to_string(location) + ".evt");
  std::error_code ec;
  const std::uintmax_t bytes = fs::file_size(file, ec);
  return ec ? 0 : std::min<std::uint64_t>(declared, bytes);
}

// Reads rank r's event file into `rank` (thread-safe for different ranks: OTF2's locking
// callbacks guard the shared reader); throws wisp::Error naming the file and the rank.
void read_rank_events(const EventReading& in, Rank r, RankBuilder& rank, RankRead& out, const io::RankStop& stop) {
  const ArchiveDefinitions& archive = in.archive;
  const std::string context = fmt::format("{}: rank {} (location {})", in.where, r, archive.rank_location[r]);
  OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(in.reader, archive.rank_location[r]);
  if (!events) io::check_otf2(OTF2_ERROR_FILE_INTERACTION, context + ": no event file", in.scope);
  LocationReader ctx{&rank,
                     &archive,
                     {},
                     {},
                     {},
                     {&archive, &out.thread_records, 0},
                     {},
                     {&archive, &out.rma_records, 0},
                     {&archive, &out.attributes, 0}};
  rank.reserve(events_to_reserve(in.where, archive.rank_location[r], archive.declared_events[r]));
  io::check_otf2(OTF2_Reader_RegisterEvtCallbacks(in.reader, events, in.callbacks, &ctx), context, in.scope);
  uint64_t read = 0;
  const OTF2_ErrorCode status = read_events(in.reader, events, stop, read);
  if (status == OTF2_ERROR_INTERRUPTED_BY_CALLBACK)
    throw Error(context + ": an event refers to an undefined region (corrupt definitions)");
  if (status != OTF2_SUCCESS || !stop.requested())  // stopped early: another rank failed
    io::check_event_file(status, read, archive.declared_events[r], context, in.scope);
  OTF2_Reader_CloseEvtReader(in.reader, events);
  if (stop.requested()) return;
  // Score-P's MPI records name communicators through the rank's local mapping tables; records on
  // a communicator that maps to nothing MPI mean those tables are missing, empty or truncated.
  if (ctx.skipped[kUnknownComm] > 0)
    throw Error(
        fmt::format("{}: {} MPI records refer to communicators that are not defined as MPI "
                    "communicators: the rank's local definitions (traces/{}.def) are missing, "
                    "empty or truncated",
                    context, ctx.skipped[kUnknownComm], archive.rank_location[r]));
  out.skipped = ctx.skipped;
  out.skipped[kThread] += ctx.threads.unknown_team;
  out.skipped[kRma] += ctx.rma.unknown_window;
  out.skipped[kAttributes] += ctx.attributes.unkept;
  out.program = std::move(ctx.program_name);
  out.program_arguments = std::move(ctx.program_arguments);
  out.metrics = std::move(ctx.metrics);
}

// Threads to read the ranks with: ReadOptions::threads, by default one per core, at most one
// per rank.
unsigned reading_threads(const ReadOptions& options, std::size_t ranks) {
  const unsigned wanted = options.threads ? options.threads : std::thread::hardware_concurrency();
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(wanted, ranks)));
}

// Reads every rank's event file, on `threads` threads; RankBuilders of a RankAppend::Concurrent
// builder when there are several.
std::vector<RankRead> read_ranks(const EventReading& in, TraceBuilder& builder, unsigned threads, RankShare share,
                                 const ReadOptions& options) {
  std::vector<RankRead> out(in.archive.rank_location.size());
  const std::size_t ranks = share.size();
  io::for_each_rank(
      ranks, threads,
      [&](std::size_t k, const io::RankStop& stop) {
        const auto r = static_cast<Rank>(share.first + k);
        read_rank_events(in, r, builder.rank(r), out[r], stop);
      },
      [&](std::size_t done) {
        if (options.progress) options.progress(done, ranks);
      });
  return out;
}

// The ranks' skipped records and the program name (the first rank's that has one).
void add_rank_reads(TraceBuilder& builder, const std::vector<RankRead>& reads) {
  std::array<std::uint64_t, kSkippedCount> skipped{};
  std::string program;
  for (const RankRead& read : reads) {
    for (int k = 0; k < kSkippedCount; ++k) skipped[k] += read.skipped[k];
    if (program.empty()) program = read.program, builder.defs().program_arguments = read.program_arguments;
  }
  builder.defs().program_name = program;
  for (int k = 0; k < kSkippedCount; ++k)
    if (skipped[k]) builder.skipped_records()[kSkippedNames[k]] += skipped[k];
}

// Counter samples: [0] the master's, [k + 1] the rank's k-th metric location's; none if all empty.
void add_metrics(Trace& trace, std::vector<RankRead>& masters, std::vector<std::vector<MetricSamples>> locations) {
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    RankMetrics& metrics = trace.ranks[r].metrics;
    metrics.push_back(std::move(masters[r].metrics));
    for (MetricSamples& location : locations[r]) metrics.push_back(std::move(location));
    if (std::all_of(metrics.begin(), metrics.end(), [](const MetricSamples& m) { return m.empty(); })) metrics.clear();
  }
}

// Hybrid traces: the ranks' other threads and streams, their kept events and their anomalies.
void add_other_locations(Trace& trace, const ArchiveDefinitions& archive, io::OtherLocations others,
                         std::vector<RankRead> masters) {
  trace.defs.thread_teams = archive.defs.thread_teams;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    trace.defs.ranks[r].others = archive.defs.ranks[r].others;
    trace.ranks[r].others = std::move(others.events[r]);
    ThreadRecords& records = trace.ranks[r].thread_records;
    records.push_back(std::move(masters[r].thread_records));
    for (auto& location : others.thread_records[r]) records.push_back(std::move(location));
    const bool any = std::any_of(records.begin(), records.end(), [](const auto& l) { return !l.empty(); });
    if (!any) records.clear();
    RmaRecords& rma = trace.ranks[r].rma_records;
    rma.push_back(std::move(masters[r].rma_records));
    for (auto& location : others.rma_records[r]) rma.push_back(std::move(location));
    if (std::all_of(rma.begin(), rma.end(), [](const auto& l) { return l.empty(); })) rma.clear();
    OtherLocationMetrics& metrics = trace.ranks[r].other_metrics;
    metrics = std::move(others.metrics[r]);
    if (std::all_of(metrics.begin(), metrics.end(), [](const auto& l) { return l.empty(); })) metrics.clear();
    RankAttributes& attributes = trace.ranks[r].attributes;
    attributes.push_back(std::move(masters[r].attributes));
    for (auto& location : others.attributes[r]) attributes.push_back(std::move(location));
    if (std::all_of(attributes.begin(), attributes.end(), [](const auto& l) { return l.empty(); })) attributes.clear();
  }
  for (const std::string& stray : archive.stray_locations)
    trace.anomalies.add(AnomalyKind::StrayLocation, [&] { return stray; });
  check_teams(trace);
}

// Spread over processes: what the other processes' ranks found joins this one's, as if one process
// had read every rank: skipped records (summed), the program name (the first rank's that has one,
// in rank order), the anomalies of their threads (merged in rank order) and how many records each
// of their other locations has.
void gather_rank_reads(Trace& trace, ProcessGroup& group) {
  constexpr AnomalyKind kThreadKinds[] = {AnomalyKind::OrphanThreadRegion, AnomalyKind::TeamSizeChange};
  Packer mine;
  mine.put_string(trace.defs.program_name);
  mine.put<std::uint64_t>(trace.defs.program_arguments.size());
  for (const std::string& a : trace.defs.program_arguments) mine.put_string(a);
  mine.put<std::uint64_t>(trace.skipped_records.size());
  for (const auto& [what, n] : trace.skipped_records) mine.put_string(what).put(n);
  Anomalies threads;
  for (AnomalyKind k : kThreadKinds) threads.set(k, trace.anomalies[k]);
  pack_anomalies(mine, threads);
  mine.put(*trace.share);
  for (Rank r = trace.share->first; r < trace.share->last; ++r)
    for (const ThreadLocation& l : trace.defs.ranks[r].others) mine.put(l.records);
  trace.defs.program_name.clear();
  trace.skipped_records.clear();
  for (AnomalyKind k : kThreadKinds) trace.anomalies.reset(k);
  for (const std::string& packet : all_gather(group, mine.take())) {
    Unpacker in(packet);
    std::string program = in.get_string();
    std::vector<std::string> arguments(in.get<std::uint64_t>());
    for (std::string& a : arguments) a = in.get_string();
    if (trace.defs.program_name.empty() && !program.empty())
      trace.defs.program_name = std::move(program), trace.defs.program_arguments = std::move(arguments);
    for (auto n = in.get<std::uint64_t>(); n > 0; --n) {
      std::string what = in.get_string();
      trace.skipped_records[what] += in.get<std::uint64_t>();
    }
    trace.anomalies.merge(unpack_anomalies(in));
    const auto share = in.get<RankShare>();
    for (Rank r = share.first; r < share.last; ++r)
      for (ThreadLocation& l : trace.defs.ranks[r].others) l.records = in.get<std::uint64_t>();
  }
}

// The global definitions and the anchor's creator ("Score-P 8.1").
ArchiveDefinitions read_archive_definitions(OTF2_Reader* reader, const std::string& where,
                                            const Otf2ErrorScope& scope) {
  char* creator = nullptr;
  if (OTF2_Reader_GetCreator(reader, &creator) != OTF2_SUCCESS)
    io::check_otf2(OTF2_ERROR_FILE_INTERACTION, where + ": not an OTF2 anchor file", scope);
  const std::string text = creator ? creator : "";
  free(creator);
  ArchiveDefinitions archive = io::read_global_definitions(reader, where, scope);
  archive.defs.creator = text;
  return archive;
}

// Opens the anchor and reads its global definitions and the local ones of every location to read.
ArchiveDefinitions open_archive(ReaderHandle& handle, const fs::path& anchor, ProcessGroup* group, RankShare& share,
                                const std::string& where, const Otf2ErrorScope& scope) {
  handle.reader = OTF2_Reader_Open(anchor.c_str());
  if (!handle.reader) io::check_otf2(OTF2_ERROR_FILE_INTERACTION, where + ": not an OTF2 anchor file", scope);
  io::check_otf2(OTF2_Reader_SetSerialCollectiveCallbacks(handle.reader), where + ": not an OTF2 anchor file", scope);
  ArchiveDefinitions archive = read_archive_definitions(handle.reader, where, scope);
  share = RankShare{0, static_cast<Rank>(archive.rank_location.size())};
  if (group) share = share_of(archive.declared_events, group->process(), group->processes());
  for (std::uint64_t location : io::locations_to_read(archive, share))
    io::check_otf2(OTF2_Reader_SelectLocation(handle.reader, location), where, scope);
  read_local_definitions(handle.reader, archive, share, where, scope);
  return archive;
}

// Owns the event callbacks for the duration of a read.
struct CallbacksHandle {
  OTF2_EvtReaderCallbacks* callbacks = make_event_callbacks();
  ~CallbacksHandle() { OTF2_EvtReaderCallbacks_Delete(callbacks); }
};

}  // namespace

// What keeps a file from being read, said plainly (every problem used to be "not an OTF2 anchor").
void check_readable(const fs::path& file) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw Error(file.string() + ": is a directory, not an OTF2 anchor file");
  if (::access(file.c_str(), R_OK) != 0)
    throw Error(file.string() + ": cannot read the file (" + std::strerror(errno) + ")");
  if (fs::file_size(file, ec) == 0) throw Error(file.string() + ": is empty, not an OTF2 anchor file");
}

Trace read_otf2(const fs::path& path, const ReadOptions& options) {
  const fs::path anchor = resolve_anchor(path);
  const std::string where = anchor.string();
  check_readable(anchor);
  io::probe_anchor(anchor);
  Otf2ErrorScope scope;
  ReaderHandle handle{nullptr};
  RankShare share;
  ArchiveDefinitions archive = open_archive(handle, anchor, options.group, share, where, scope);
  const unsigned threads = reading_threads(options, share.size());
  if (threads > 1) io::check_otf2(OTF2_Pthread_Reader_SetLockingCallbacks(handle.reader, nullptr), where, scope);
  TraceBuilder builder(archive.defs, threads > 1 || options.group ? RankAppend::Concurrent : RankAppend::Shared);
  const CallbacksHandle callbacks;
  io::check_otf2(OTF2_Reader_OpenEvtFiles(handle.reader), where + ": cannot open event files", scope);
  std::vector<RankRead> reads =
      read_ranks({handle.reader, callbacks.callbacks, archive, where, scope}, builder, threads, share, options);
  io::OtherLocations others = io::read_other_locations(handle.reader, archive, share, where, scope);
  io::MetricLocationSkips unkept_metrics;
  auto metric_locations = io::read_metric_locations(handle.reader, archive, share, unkept_metrics, where, scope);
  OTF2_Reader_CloseEvtFiles(handle.reader);

  add_rank_reads(builder, reads);
  Trace trace = options.group ? builder.finish(*options.group, share) : builder.finish();
  if (others.unknown_team) trace.skipped_records[kSkippedNames[kThread]] += others.unknown_team;
  if (unkept_metrics.records)
    trace.skipped_records["record on a metric location (not a kept Metric)"] += unkept_metrics.records;
  if (unkept_metrics.attributes)
    trace.skipped_records["attribute list of a metric location's record"] += unkept_metrics.attributes;
  if (others.unkept) trace.skipped_records["record of another thread or stream (RMA, ...)"] += others.unkept;
  if (others.unkept_attributes) trace.skipped_records[kSkippedNames[kAttributes]] += others.unkept_attributes;
  add_metrics(trace, reads, std::move(metric_locations));
  add_other_locations(trace, archive, std::move(others), std::move(reads));
  if (options.group) gather_rank_reads(trace, *options.group);
  for (const auto& [what, n] : archive.skipped) trace.skipped_records[what] += n;
  io::intern_attribute_strings(trace, archive.strings);
  return trace;
}

}  // namespace wisp
