package dev.fencedlock.redlock.internal;

import dev.fencedlock.spi.MonotonicClock;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.args.RawableFactory;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;

/**
 * A Jedis connection that can write a command without reading its reply, so that one thread can
 * send to every node before it waits for any, and that knows which server incarnation it talks to.
 * Used by one thread at a time (the pool hands it out exclusively).
 */
final class NodeConnection extends Connection {
    private static final byte[] LOAD = "LOAD".getBytes(StandardCharsets.US_ASCII);

    private RedisInstance instance;
    private boolean pooledBefore;

    /** Connects, authenticates and selects the database, all within the config's timeouts. */
    NodeConnection(JedisSocketFactory socketFactory, JedisClientConfig config) {
        super(socketFactory, config);
    }

    /**
     * Asks {@code INFO server} and {@code INFO replication} which incarnation this connection talks
     * to (a promoted replica is a new one, {@link RedisInstance}) and {@code INFO memory} whether it
     * may evict keys, and loads every script, in one round trip, so that calls on a new
     * connection (to a new server, often) need no {@code NOSCRIPT} detour.
     */
    void probeAndLoad(MonotonicClock clock) {
        sendProbe();
        Script[] scripts = Script.values();
        for (Script script : scripts) {
            sendScriptLoad(script);
        }
        readProbe(clock);
        for (int i = 0; i < scripts.length; i++) {
            getOne();
        }
    }

    /**
     * Writes {@code INFO server}, {@code INFO memory}, {@code INFO replication}, {@code INFO
     * persistence} and {@code CONFIG GET appendfsync} (not flushed: the call that follows flushes
     * them).
     */
    void sendProbe() {
        sendCommand(Protocol.Command.INFO, "server");
        sendCommand(Protocol.Command.INFO, "memory");
        sendCommand(Protocol.Command.INFO, "replication");
        sendCommand(Protocol.Command.INFO, "persistence");
        sendCommand(Protocol.Command.CONFIG, "GET", "appendfsync");
    }

    /**
     * Reads the replies to {@link #sendProbe()} and records the incarnation they name. The same
     * incarnation seen again keeps the earlier of the two start times (each is a latest possible
     * start, see {@link RedisInstance}) and takes the eviction policy it has now.
     */
    void readProbe(MonotonicClock clock) {
        String server = text("server", getOne());
        String memory = text("memory", getOne());
        String replication = text("replication", getOne());
        String persistence = text("persistence", getOne());
        String appendfsync = appendfsync();
        RedisInstance seen = RedisInstance.fromInfo(server + "\r\n" + memory, replication, clock.nanoTime())
                .withPersistence(persistence, appendfsync);
        if (instance == null || !instance.runId().equals(seen.runId())) {
            instance = seen;
        } else {
            instance = new RedisInstance(
                    instance.runId(),
                    Math.min(instance.startedAtNanos(), seen.startedAtNanos()),
                    instance.probedAtNanos(),
                    seen.evictionPolicy(),
                    seen.persistsEveryWrite(),
                    seen.promoted());
        }
    }

    /** The reply to {@code CONFIG GET appendfsync}; null if the command is refused or renamed. */
    private String appendfsync() {
        try {
            Object reply = getOne();
            if (reply instanceof List<?> pair && pair.size() == 2 && pair.get(1) instanceof byte[] value) {
                return SafeEncoder.encode(value);
            }
            return null;
        } catch (JedisDataException e) {
            return null;
        }
    }

    private static String text(String section, Object reply) {
        if (!(reply instanceof byte[] text)) {
            throw new IllegalStateException("INFO " + section + " answered with " + reply);
        }
        return SafeEncoder.encode(text);
    }

    RedisInstance instance() {
        return instance;
    }

    /**
     * Whether this connection went back to the pool at least once: such a connection may have been
     * cut while idle (the server restarted), unlike one just opened.
     */
    boolean pooledBefore() {
        return pooledBefore;
    }

    void markPooled() {
        pooledBefore = true;
    }

    /**
     * Writes {@code ASKING} (not flushed: the script call that follows flushes both). It answers an
     * {@code ASK} redirection of a Redis Cluster: the node then serves the next command for a slot it
     * is importing. Its reply ({@code OK}) comes before the script's and must be read first.
     */
    void sendAsking() {
        sendCommand(Protocol.Command.ASKING);
    }

    /**
     * Reads the reply to {@link #sendAsking()}. An error reply (a node without cluster support) is
     * not reported here: the script's own reply, read next, says what the node made of the call.
     */
    void readAskingReply(int timeoutMillis) {
        try {
            readReply(timeoutMillis);
        } catch (JedisDataException e) {
            // the script's reply reports it
        }
    }

    /** Writes {@code EVALSHA} and flushes it to the socket. */
    void sendScript(Script script, byte[][] keys, byte[][] args) {
        sendCommand(evalsha(script, keys, args));
        flush();
    }

    /**
     * Writes {@code EVALSHA} and then {@code WAIT replicas timeoutMillis}, and flushes both: the
     * second reply says how many replicas acknowledged every write of this connection so far, the
     * script's included.
     */
    void sendScriptAndWait(Script script, byte[][] keys, byte[][] args, ReplicaAck ack) {
        sendCommand(evalsha(script, keys, args));
        sendCommand(ack.command());
        flush();
    }

    /**
     * {@code EVALSHA} of {@code script} with its keys and arguments. The arrays are written as they
     * are, not copied (Jedis's own {@code add(byte[])} copies each one): callers never change an
     * array once they passed it.
     */
    static CommandArguments evalsha(Script script, byte[][] keys, byte[][] args) {
        CommandArguments command = new CommandArguments(Protocol.Command.EVALSHA)
                .add(script.sha1Argument())
                .add(count(keys.length));
        for (byte[] key : keys) {
            command.add(new Unshared(key));
        }
        for (byte[] arg : args) {
            command.add(new Unshared(arg));
        }
        return command;
    }

    /** {@code value} as an argument, not copied; the caller never changes it afterwards. */
    static Rawable argument(byte[] value) {
        return new Unshared(value);
    }

    /** A decimal count as an argument; the small ones every call sends are made once. */
    static Rawable count(int value) {
        return value >= 0 && value < COUNTS.length ? COUNTS[value] : RawableFactory.from(value);
    }

    private static final Rawable[] COUNTS = counts(16);

    private static Rawable[] counts(int size) {
        Rawable[] counts = new Rawable[size];
        for (int i = 0; i < size; i++) {
            counts[i] = RawableFactory.from(i);
        }
        return counts;
    }

    /** An argument that writes its array without the defensive copy of Jedis's own wrapper. */
    private static final class Unshared implements Rawable {
        private final byte[] raw;

        Unshared(byte[] raw) {
            this.raw = raw;
        }

        @Override
        public byte[] getRaw() {
            return raw;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Unshared that && Arrays.equals(raw, that.raw);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(raw);
        }
    }

    /** Flushes the commands written so far to the socket (pipelining: write many, flush once). */
    void flushCommands() {
        flush();
    }

    /** Writes {@code SCRIPT LOAD} (not flushed: the call that follows flushes both). */
    void sendScriptLoad(Script script) {
        sendCommand(new CommandArguments(Protocol.Command.SCRIPT).add(LOAD).add(script.source()));
    }

    /**
     * Reads the next reply, waiting at most {@code timeoutMillis}.
     *
     * @throws redis.clients.jedis.exceptions.JedisDataException for an error reply (the connection
     *     stays usable)
     * @throws redis.clients.jedis.exceptions.JedisConnectionException on timeout or I/O failure (the
     *     connection is then broken and the pool drops it)
     */
    Object readReply(int timeoutMillis) {
        setSoTimeout(timeoutMillis);
        return getOne();
    }
}
