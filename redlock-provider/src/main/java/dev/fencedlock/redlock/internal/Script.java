package dev.fencedlock.redlock.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.args.RawableFactory;

/**
 * The Lua scripts of the algorithm, read once from the resources beside this class. Each is run
 * with {@code EVALSHA} by its SHA-1, computed here. Every new connection loads all of them with
 * {@code SCRIPT LOAD} (a new connection often means a restarted server, which has none); a call
 * that still meets {@code NOSCRIPT} (the script cache was flushed) loads its script and is repeated.
 */
enum Script {
    /** SET NX PX of the lock key plus the token proposal; see acquire.lua. */
    ACQUIRE("acquire.lua"),
    /** Raises the token counter, never lowers it; see raise-token.lua. */
    RAISE_TOKEN("raise-token.lua"),
    /** Compare-and-pexpire; see extend.lua. */
    EXTEND("extend.lua"),
    /** Compare-and-pexpire of many leases in one call, for pipelined renewals; see extend-many.lua. */
    EXTEND_MANY("extend-many.lua"),
    /** Compare-and-delete, optionally publishing the release; see release.lua. */
    RELEASE("release.lua"),
    /** Touches nothing; the status probe of {@link RedlockProvider#status}. See ping.lua. */
    PING("ping.lua");

    private final String source;
    private final byte[] sha1;
    private final Rawable sha1Argument;

    Script(String resource) {
        this.source = read(resource);
        this.sha1 = HexFormat.of().formatHex(digest(source)).getBytes(StandardCharsets.US_ASCII);
        this.sha1Argument = RawableFactory.from(sha1);
    }

    private static String read(String resource) {
        try (InputStream in = Script.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("script resource " + resource + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script resource " + resource, e);
        }
    }

    private static byte[] digest(String source) {
        try {
            return MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }

    String source() {
        return source;
    }

    /**
     * The SHA-1 of the source in lower-case hex, as ASCII bytes ready for {@code EVALSHA}. Shared,
     * not copied, because it is sent on every call: callers must not modify it.
     */
    byte[] sha1() {
        return sha1;
    }

    /** {@link #sha1()} as a command argument, made once: every call sends it. */
    Rawable sha1Argument() {
        return sha1Argument;
    }
}
