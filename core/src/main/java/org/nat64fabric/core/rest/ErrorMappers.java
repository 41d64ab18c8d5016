package org.nat64fabric.core.rest;

import java.util.logging.Level;
import java.util.logging.Logger;
import javax.ws.rs.WebApplicationException;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.Response;
import javax.ws.rs.ext.ExceptionMapper;

/**
 * Every error the container raises, answered in the API's JSON form instead of the container's
 * empty or HTML page: unknown paths (404), methods (405), media types (415, 406).
 */
public final class ErrorMappers {
    private static final Logger LOG = Logger.getLogger(ErrorMappers.class.getName());

    private ErrorMappers() {
    }

    /** What the container refuses: its status, with the part of the request at fault. */
    public static final class Refused implements ExceptionMapper<WebApplicationException> {
        @Override
        public Response toResponse(WebApplicationException e) {
            int status = e.getResponse() == null ? 400 : e.getResponse().getStatus();
            if (status >= 500) {
                return new Unexpected().toResponse(e);
            }
            String reason = Response.Status.fromStatusCode(status) == null ? "refused"
                    : Response.Status.fromStatusCode(status).getReasonPhrase();
            String allow = status == 405 && e.getResponse() != null ? e.getResponse().getHeaderString(HttpHeaders.ALLOW) : null;
            if (allow == null) {
                return Errors.of(status, field(status), reason);
            }
            // RFC 9110 15.5.6: a 405 names the methods the resource takes
            return Response.fromResponse(Errors.of(status, field(status), reason + ": this path takes " + allow))
                    .header(HttpHeaders.ALLOW, allow).build();
        }

        private static String field(int status) {
            switch (status) {
                case 404: return "path";
                case 405: return "method";
                case 406: return "Accept";
                case 415: return "Content-Type";
                default: return "request";
            }
        }
    }

    /**
     * Anything else is a bug, never the client's input (which is answered 4xx): logged with its
     * stack trace, answered 500 without one.
     */
    public static final class Unexpected implements ExceptionMapper<Throwable> {
        @Override
        public Response toResponse(Throwable e) {
            LOG.log(Level.SEVERE, "REST request failed unexpectedly", e);
            return Errors.of(500, null, "internal error (" + e.getClass().getSimpleName()
                    + "): the controller's log has the details");
        }
    }
}
