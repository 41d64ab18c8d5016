package org.nat64fabric.app.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.function.Function;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.control.Nat64Service;
import org.onosproject.cli.AbstractShellCommand;

/**
 * What every nat64-* command shares: the service, bad input reported as "field: problem" like the
 * REST API, and lists printed one item per line or, with -j, as the REST API's JSON.
 */
abstract class Nat64Command extends AbstractShellCommand {
    @Override
    protected final void doExecute() {
        try {
            run(get(Nat64Service.class));
        } catch (ConfigException e) {
            error("%s: %s", e.field(), e.problem());
        } catch (Nat64Service.NotConfigured e) {
            error("%s", e.getMessage());
        }
    }

    protected abstract void run(Nat64Service nat64);

    protected <T> void list(String name, List<T> items, Function<T, ObjectNode> json) {
        if (outputJson()) {
            ObjectNode root = mapper().createObjectNode();
            ArrayNode array = root.putArray(name);
            items.forEach(i -> array.add(json.apply(i)));
            print("%s", root);
        } else if (items.isEmpty()) {
            print("(none)");
        } else {
            items.forEach(i -> print("%s", i));
        }
    }

    /** One changed item: its JSON with -j, otherwise the line given. */
    protected void done(ObjectNode json, String line) {
        print("%s", outputJson() ? json : line);
    }
}
