package org.nat64fabric.core.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

/** The API's error answer, {@code {"field": ..., "message": ...}}, for every status it gives. */
final class Errors {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Errors() {
    }

    static Response of(int status, String field, String message) {
        String body = MAPPER.createObjectNode().put("field", field).put("message", message).toString();
        return Response.status(status).entity(body).type(MediaType.APPLICATION_JSON).build();
    }
}
