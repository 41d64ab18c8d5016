"""A P4Runtime client on the PyPI `p4runtime` bindings: arbitration, pipeline, writes with
per-update errors, reads, packet-in/out and notifications, with P4Info names instead of IDs."""
import ipaddress
import queue
import threading

import grpc
from google.protobuf import text_format
from google.rpc import status_pb2
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

Update = p4runtime_pb2.Update


def encode(value, bitwidth):
    """A value as a canonical P4Runtime bytestring: ints, 'a.b.c.d', IPv6 text, 'aa:bb:..' MACs."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        if bitwidth == 48 and value.count(":") == 5:
            value = int(value.replace(":", ""), 16)
        else:
            value = int(ipaddress.ip_address(value))
    if value < 0 or value.bit_length() > bitwidth:
        raise ValueError(f"{value} does not fit in {bitwidth} bits")
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


class P4Info:
    """A P4Info text file with lookups by name (full name or alias)."""

    def __init__(self, path):
        self.message = text_format.Parse(open(path).read(), p4info_pb2.P4Info())
        self._by_name = {}
        for kind in ("tables", "actions", "action_profiles", "counters", "direct_counters", "meters", "direct_meters",
                     "registers", "controller_packet_metadata", "digests"):
            for obj in getattr(self.message, kind):
                self._by_name[(kind, obj.preamble.name)] = obj
                self._by_name[(kind, obj.preamble.alias)] = obj

    def get(self, kind, name):
        try:
            return self._by_name[(kind, name)]
        except KeyError:
            raise KeyError(f"the P4Info has no {kind[:-1].replace('_', ' ')} named {name!r}") from None

    def id(self, kind, name):
        return self.get(kind, name).preamble.id


class WriteError(Exception):
    """A Write (or Read batch) that failed: the gRPC code and the p4.v1.Error of every update (or
    read request), in order."""

    def __init__(self, code, message, errors):
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.errors = errors

    def codes(self):
        return [grpc.StatusCode.OK if e.canonical_code == 0 else
                next(c for c in grpc.StatusCode if c.value[0] == e.canonical_code) for e in self.errors]


def batch_error(err):
    errors = []
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for any_detail in status_pb2.Status.FromString(value).details:
                e = p4runtime_pb2.Error()
                any_detail.Unpack(e)
                errors.append(e)
    return WriteError(err.code(), err.details(), errors)


class P4RuntimeClient:
    """One controller connected to one device."""

    def __init__(self, address, device_id, p4info=None, election_id=1, credentials=None):
        """credentials: grpc.ssl_channel_credentials(...) for a switch serving TLS; plaintext without."""
        self.device_id = device_id
        self.election_id = p4runtime_pb2.Uint128(high=0, low=election_id)
        self.p4info = p4info
        self.channel = grpc.secure_channel(address, credentials) if credentials else grpc.insecure_channel(address)
        grpc.channel_ready_future(self.channel).result(timeout=30)
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self._requests = queue.Queue()
        self._queues = {kind: queue.Queue() for kind in ("arbitration", "packet", "idle_timeout_notification", "digest",
                                                     "error")}
        self._stream = self.stub.StreamChannel(iter(self._requests.get, None))
        self.stream_error = None
        self._reader = threading.Thread(target=self._read_stream, daemon=True)
        self._reader.start()

    def _read_stream(self):
        try:
            for response in self._stream:
                self._queues[response.WhichOneof("update")].put(response)
        except grpc.RpcError as e:
            self.stream_error = e
            self._queues["arbitration"].put(None)

    def close(self):
        self._requests.put(None)
        self.channel.close()

    # ---- stream channel ----

    def arbitrate(self, election_id=None, timeout=5):
        """Sends a MasterArbitrationUpdate; returns the switch's answer (status OK = primary)."""
        if election_id is not None:
            self.election_id = p4runtime_pb2.Uint128(high=0, low=election_id)
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = self.device_id
        req.arbitration.election_id.CopyFrom(self.election_id)
        self._requests.put(req)
        response = self._queues["arbitration"].get(timeout=timeout)
        if response is None:
            raise self.stream_error
        return response.arbitration

    def next_arbitration(self, timeout=5):
        response = self._queues["arbitration"].get(timeout=timeout)
        if response is None:
            raise self.stream_error
        return response.arbitration

    def packet_out(self, payload, **metadata):
        """Sends a PacketOut with the packet_out header's fields by name (0 for those not named)."""
        header = self.p4info.get("controller_packet_metadata", "packet_out")
        req = p4runtime_pb2.StreamMessageRequest()
        req.packet.payload = bytes(payload)
        for m in header.metadata:   # every field, as P4Runtime 16.1 asks: the ones not given are 0
            req.packet.metadata.add(metadata_id=m.id, value=encode(metadata.pop(m.name, 0), m.bitwidth))
        if metadata:
            raise KeyError(f"packet_out has no metadata {sorted(metadata)}")
        self._requests.put(req)

    def packet_in(self, timeout=2):
        """(payload, {metadata name: int}) of the next packet-in, or None."""
        try:
            packet = self._queues["packet"].get(timeout=timeout).packet
        except queue.Empty:
            return None
        header = self.p4info.get("controller_packet_metadata", "packet_in")
        names = {m.id: m.name for m in header.metadata}
        return packet.payload, {names[m.metadata_id]: int.from_bytes(m.value, "big") for m in packet.metadata}

    def idle_timeout_notification(self, timeout=5):
        try:
            return self._queues["idle_timeout_notification"].get(timeout=timeout).idle_timeout_notification
        except queue.Empty:
            return None

    def digest_list(self, timeout=2):
        """The next DigestList, or None."""
        try:
            return self._queues["digest"].get(timeout=timeout).digest
        except queue.Empty:
            return None

    def digest_ack(self, digest_list):
        """Acknowledges a DigestList (P4Runtime DigestListAck)."""
        req = p4runtime_pb2.StreamMessageRequest()
        req.digest_ack.digest_id = digest_list.digest_id
        req.digest_ack.list_id = digest_list.list_id
        self._requests.put(req)

    def stream_errors(self, timeout=2):
        try:
            return self._queues["error"].get(timeout=timeout).error
        except queue.Empty:
            return None

    # ---- pipeline ----

    def set_pipeline(self, p4info_path, device_config, action="VERIFY_AND_COMMIT", cookie=0, p4info=None):
        req = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=self.device_id, election_id=self.election_id)
        req.action = p4runtime_pb2.SetForwardingPipelineConfigRequest.Action.Value(action)
        if p4info_path is not None:
            self.p4info = P4Info(p4info_path)
            req.config.p4info.CopyFrom(p4info if p4info is not None else self.p4info.message)
            req.config.p4_device_config = device_config
        if cookie is not None:   # None: a config without a cookie
            req.config.cookie.cookie = cookie
        return self.stub.SetForwardingPipelineConfig(req)

    def get_pipeline(self, response_type="ALL"):
        req = p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=self.device_id)
        req.response_type = p4runtime_pb2.GetForwardingPipelineConfigRequest.ResponseType.Value(response_type)
        return self.stub.GetForwardingPipelineConfig(req).config

    # ---- writes and reads ----

    def write(self, *updates, election_id=None, atomicity="CONTINUE_ON_ERROR"):
        req = p4runtime_pb2.WriteRequest(device_id=self.device_id,
                                         atomicity=p4runtime_pb2.WriteRequest.Atomicity.Value(atomicity))
        req.election_id.CopyFrom(election_id if election_id is not None else self.election_id)
        for u in updates:
            req.updates.add().CopyFrom(u)
        try:
            self.stub.Write(req)
        except grpc.RpcError as e:
            raise batch_error(e) from None

    def read(self, *entities):
        req = p4runtime_pb2.ReadRequest(device_id=self.device_id)
        for e in entities:
            req.entities.add().CopyFrom(e)
        return [e for response in self.stub.Read(req) for e in response.entities]

    # ---- entities by name ----

    def table_entry(self, table, match=None, action=None, params=None, priority=0, idle_timeout_ns=0,
                    default=False):
        """An Entity with a table entry: match maps field names to values, or to (value, prefix_len)
        for lpm and (value, mask) for ternary."""
        t = self.p4info.get("tables", table)
        entity = p4runtime_pb2.Entity()
        e = entity.table_entry
        e.table_id = t.preamble.id
        e.priority = priority
        e.idle_timeout_ns = idle_timeout_ns
        e.is_default_action = default
        fields = {f.name: f for f in t.match_fields}
        for name, value in (match or {}).items():
            f = fields[name]
            m = e.match.add(field_id=f.id)
            kind = p4info_pb2.MatchField.MatchType.Name(f.match_type)
            if kind == "EXACT":
                m.exact.value = encode(value, f.bitwidth)
            elif kind == "LPM":
                m.lpm.value = encode(value[0], f.bitwidth)
                m.lpm.prefix_len = value[1]
            elif kind == "TERNARY":
                m.ternary.value = encode(value[0], f.bitwidth)
                m.ternary.mask = encode(value[1], f.bitwidth)
            else:
                raise ValueError(f"match kind {kind} is not handled by this helper")
        if action is not None:
            e.action.action.CopyFrom(self.action(action, params))
        return entity

    def action(self, name, params=None):
        """A p4.v1.Action by name, its parameters by name."""
        a = self.p4info.get("actions", name)
        out = p4runtime_pb2.Action(action_id=a.preamble.id)
        param_defs = {p.name: p for p in a.params}
        for pname, value in (params or {}).items():
            p = param_defs[pname]
            out.params.add(param_id=p.id, value=encode(value, p.bitwidth))
        return out

    def digest_entry(self, digest, max_timeout_ns=None, max_list_size=0, ack_timeout_ns=0):
        """An Entity with a DigestEntry (digest None: the wildcard ID 0); a config when max_timeout_ns is given."""
        entity = p4runtime_pb2.Entity()
        d = entity.digest_entry
        d.digest_id = self.p4info.id("digests", digest) if digest else 0
        if max_timeout_ns is not None:
            d.config.max_timeout_ns = max_timeout_ns
            d.config.max_list_size = max_list_size
            d.config.ack_timeout_ns = ack_timeout_ns
        return entity

    def profile_member(self, profile, member_id=0, action=None, params=None):
        """An Entity with an ActionProfileMember (profile None: the wildcard ID 0)."""
        entity = p4runtime_pb2.Entity()
        m = entity.action_profile_member
        m.action_profile_id = self.p4info.id("action_profiles", profile) if profile else 0
        m.member_id = member_id
        if action is not None:
            m.action.CopyFrom(self.action(action, params))
        return entity

    def profile_group(self, profile, group_id=0, members=(), max_size=None):
        """An Entity with an ActionProfileGroup; members: (member_id, weight) pairs; max_size by
        default the profile's max_group_size, which P4Runtime 9.2.2.1 makes the largest allowed."""
        entity = p4runtime_pb2.Entity()
        g = entity.action_profile_group
        g.action_profile_id = self.p4info.id("action_profiles", profile) if profile else 0
        g.group_id = group_id
        if max_size is None:
            max_size = self.p4info.get("action_profiles", profile).max_group_size if profile else 0
        g.max_size = max_size
        for member_id, weight in members:
            g.members.add(member_id=member_id, weight=weight)
        return entity

    def meter_entry(self, meter, index=None, config=None):
        """An Entity with a MeterEntry: index None names every cell; config is (cir, cburst, pir,
        pburst), or None for no configuration (which resets the cells when written)."""
        entity = p4runtime_pb2.Entity()
        e = entity.meter_entry
        e.meter_id = self.p4info.id("meters", meter)
        if index is not None:
            e.index.index = index
        if config is not None:
            e.config.cir, e.config.cburst, e.config.pir, e.config.pburst = config
        return entity

    @staticmethod
    def direct_meter_entry(table_entry, config=None):
        """An Entity with a DirectMeterEntry for the entry of table_entry (an Entity)."""
        entity = p4runtime_pb2.Entity()
        e = entity.direct_meter_entry
        e.table_entry.CopyFrom(table_entry.table_entry)
        e.table_entry.ClearField("action")
        if config is not None:
            e.config.cir, e.config.cburst, e.config.pir, e.config.pburst = config
        return entity

    @staticmethod
    def update(kind, entity):
        return p4runtime_pb2.Update(type=Update.Type.Value(kind), entity=entity)
