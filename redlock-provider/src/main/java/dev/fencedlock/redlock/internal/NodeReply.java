package dev.fencedlock.redlock.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * What one node answered to one script call: a RESP value read on a connection to a known
 * incarnation, or the reason there is no value (timeout, connection or authentication failure, an
 * error reply). Immutable.
 */
final class NodeReply {
    private final Object value;
    private final RedisInstance instance;
    private final RuntimeException failure;

    private NodeReply(Object value, RedisInstance instance, RuntimeException failure) {
        this.value = value;
        this.instance = instance;
        this.failure = failure;
    }

    static NodeReply of(Object value, RedisInstance instance) {
        return new NodeReply(value, Objects.requireNonNull(instance, "instance"), null);
    }

    static NodeReply failed(RuntimeException failure) {
        return new NodeReply(null, null, Objects.requireNonNull(failure, "failure"));
    }

    boolean ok() {
        return failure == null;
    }

    /** The incarnation that answered; only for a successful reply. */
    /** The same reply credited to {@code other}, a better-dated view of the same incarnation. */
    NodeReply withInstance(RedisInstance other) {
        return ok() ? new NodeReply(value, Objects.requireNonNull(other, "other"), null) : this;
    }

    RedisInstance instance() {
        return instance;
    }

    RuntimeException failure() {
        return failure;
    }

    /** The value as an integer reply. */
    long integer() {
        if (value instanceof Long number) {
            return number;
        }
        throw unexpected("an integer");
    }

    /** The value as an array reply. */
    List<?> array() {
        if (value instanceof List<?> list) {
            return list;
        }
        throw unexpected("an array");
    }

    /** The value as text for messages, e.g. {@code [7, "5"]}; long strings are cut. */
    String describe() {
        if (!ok()) {
            return failure.toString();
        }
        return describe(value);
    }

    private static String describe(Object value) {
        if (value == null) {
            return "nil";
        }
        if (value instanceof byte[] bytes) {
            String text = new String(bytes, 0, Math.min(bytes.length, 64), StandardCharsets.UTF_8);
            return "\"" + text + (bytes.length > 64 ? "...\"" : "\"");
        }
        if (value instanceof List<?> list) {
            StringBuilder text = new StringBuilder("[");
            for (int i = 0; i < list.size() && i < 8; i++) {
                text.append(i == 0 ? "" : ", ").append(describe(list.get(i)));
            }
            return text.append(list.size() > 8 ? ", ...]" : "]").toString();
        }
        return String.valueOf(value);
    }

    private IllegalStateException unexpected(String expected) {
        return new IllegalStateException("expected " + expected + " reply, got "
                + (value == null ? "nil" : value.getClass().getSimpleName()));
    }
}
