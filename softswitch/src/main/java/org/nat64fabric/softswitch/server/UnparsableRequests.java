package org.nat64fabric.softswitch.server;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A service whose requests that are not the protobuf message they should be are answered
 * INVALID_ARGUMENT, naming the message. Left to gRPC, the parse failure escapes the service:
 * the client gets UNKNOWN "Application error processing RPC" and the server logs a stack trace
 * per request (150 s of random bytes wrote 59 MB of log).
 */
public final class UnparsableRequests {
    private UnparsableRequests() {
    }

    /**
     * The same service, each method taking its request as gRPC's stream of it and parsing it itself,
     * at once: as gRPC would, with no copy of its own (the stream is gRPC's until onMessage returns).
     */
    public static ServerServiceDefinition answered(ServerServiceDefinition service) {
        List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
        ServiceDescriptor.Builder descriptor = ServiceDescriptor.newBuilder(service.getServiceDescriptor().getName());
        for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
            ServerMethodDefinition<InputStream, ?> raw = raw(m);
            methods.add(raw);
            descriptor.addMethod(raw.getMethodDescriptor());
        }
        ServerServiceDefinition.Builder out = ServerServiceDefinition.builder(descriptor.build());
        methods.forEach(out::addMethod);
        return out.build();
    }

    private static <Q, R> ServerMethodDefinition<InputStream, R> raw(ServerMethodDefinition<Q, R> typed) {
        MethodDescriptor<Q, R> method = typed.getMethodDescriptor();
        MethodDescriptor<InputStream, R> rawMethod = method.toBuilder(AS_SENT, method.getResponseMarshaller()).build();
        String what = method.getRequestMarshaller() instanceof MethodDescriptor.PrototypeMarshaller
                ? ((MethodDescriptor.PrototypeMarshaller<?>) method.getRequestMarshaller()).getMessagePrototype()
                        .getClass().getSimpleName()
                : "request";
        ServerCallHandler<InputStream, R> handler = (call, headers) -> {
            ServerCall.Listener<Q> listener = typed.getServerCallHandler().startCall(new Typed<>(call, method), headers);
            return new ServerCall.Listener<InputStream>() {
                private boolean refused;

                @Override
                public void onMessage(InputStream message) {
                    if (refused) {
                        return;
                    }
                    Q request;
                    int length = length(message);
                    try {
                        request = method.parseRequest(message);
                    } catch (RuntimeException e) {
                        refused = true;
                        call.close(Status.INVALID_ARGUMENT.withDescription("the " + method.getBareMethodName()
                                + " request is no valid " + what + " (" + length + " bytes that protobuf cannot parse)"),
                                new Metadata());
                        return;
                    }
                    listener.onMessage(request);
                }

                @Override
                public void onHalfClose() {
                    if (!refused) {
                        listener.onHalfClose();
                    }
                }

                @Override
                public void onReady() {
                    if (!refused) {
                        listener.onReady();
                    }
                }

                @Override
                public void onCancel() {
                    listener.onCancel();
                }

                @Override
                public void onComplete() {
                    // A call closed for a request that did not parse ended, for the handler, as if
                    // cancelled: a stream's observer gets onError (a primary leaves the election).
                    if (refused) {
                        listener.onCancel();
                    } else {
                        listener.onComplete();
                    }
                }
            };
        };
        return ServerMethodDefinition.create(rawMethod, handler);
    }

    /** The call as the typed handler sees it: the method as declared, everything else the raw call's. */
    private static final class Typed<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
        private final MethodDescriptor<Q, R> method;

        @SuppressWarnings("unchecked")
        Typed(ServerCall<InputStream, R> call, MethodDescriptor<Q, R> method) {
            super((ServerCall<Q, R>) (ServerCall<?, R>) call);
            this.method = method;
        }

        @Override
        public MethodDescriptor<Q, R> getMethodDescriptor() {
            return method;
        }
    }

    /** The bytes gRPC received, before they are read (gRPC's streams know their length). */
    private static int length(InputStream message) {
        try {
            return message.available();
        } catch (IOException e) {
            return -1;
        }
    }

    /** A request as gRPC received it: the stream onMessage parses before gRPC closes it. */
    private static final MethodDescriptor.Marshaller<InputStream> AS_SENT = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(InputStream value) {
            return value;
        }

        @Override
        public InputStream parse(InputStream stream) {
            return stream;
        }
    };
}
