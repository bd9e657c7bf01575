package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockNames;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.faults.FakeRedisServer.Reply;
import dev.fencedlock.faults.report.FaultMatrix;
import dev.fencedlock.faults.report.MatrixRow;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import dev.fencedlock.zookeeper.ZooKeeperSettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input, table by table: malformed configurations, lock names, durations, and Redis nodes that
 * answer garbage or hang up. Each must give an error that says what was wrong, and nothing may be
 * left half-done: no lock key on the healthy node, no lease.
 */
class BadInputIT {
    private static final String SECRET = "s3cr3t-pa55";

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(1);

    private static final AtomicInteger CASES = new AtomicInteger();
    private static TestingServer zookeeper;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = ZooKeeperServers.start();
    }

    @AfterAll
    static void record() throws Exception {
        zookeeper.close();
        FaultMatrix.record(new MatrixRow(
                "8-bad-input",
                "malformed configurations, lock names, durations; nodes answering garbage or hanging up",
                "redlock, zookeeper",
                CASES.get(),
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                "-",
                CASES.get() + " cases, each refused with a message naming the key, value or node; nothing"
                        + " written on the healthy node"));
    }

    // ----- configurations -----

    static Stream<Arguments> configurations() {
        return Stream.of(
                config("no backend", Map.of(), "fencedlock.backend is required"),
                config("unknown backend", Map.of(LockConfig.BACKEND, "etcd"), "etcd"),
                config(
                        "unknown key",
                        Map.of(LockConfig.BACKEND, "redlock", "fencedlock.lease_time", "5s"),
                        "Unknown configuration key 'fencedlock.lease_time'"),
                config("redlock without nodes", Map.of(LockConfig.BACKEND, "redlock"), RedlockSettings.NODES),
                redlock("port out of range", "redis://:" + SECRET + "@127.0.0.1:99999", "port 99999"),
                redlock("other scheme", "http://127.0.0.1:6380", "must start with redis://"),
                redlock("empty entry", "redis://127.0.0.1:7001,,redis://127.0.0.1:7002", "empty entry"),
                redlock("same node twice", "redis://127.0.0.1:7001,redis://127.0.0.1:7001", "twice"),
                redlock("database not a number", "redis://127.0.0.1:7001/zero", "database 'zero'"),
                redlock("query part", "redis://127.0.0.1:7001?timeout=1", "query"),
                redlock("no host", "redis://:" + SECRET + "@:7001", "no host"),
                setting("negative lease", LockConfig.LEASE_TIME, "-5s", "fencedlock.lease-time has '-5s'"),
                setting("lease without unit", LockConfig.LEASE_TIME, "5 parsecs", "5 parsecs"),
                setting("zero node timeout", RedlockSettings.NODE_TIMEOUT, "0ms", "must be positive"),
                setting("drift too large", RedlockSettings.DRIFT_FACTOR, "0.7", "[0, 0.5)"),
                setting("drift not a number", RedlockSettings.DRIFT_FACTOR, "one percent", "not a number"),
                setting("empty retry delay", RedlockSettings.RETRY_DELAY, "", RedlockSettings.RETRY_DELAY),
                setting(
                        "negative quarantine",
                        RedlockSettings.RESTART_QUARANTINE,
                        "-1s",
                        RedlockSettings.RESTART_QUARANTINE + " has '-1s'"),
                setting("zero hold cap", LockConfig.MAX_HOLD_TIME, "0s", "must be positive"),
                config("zookeeper without connect", Map.of(LockConfig.BACKEND, "zookeeper"), ZooKeeperSettings.CONNECT),
                zk("connect with a space", ZooKeeperSettings.CONNECT, "zk1:2181, zk2:2181", "whitespace"),
                zk("connect port not a number", ZooKeeperSettings.CONNECT, "zk1:two", "zk1:two"),
                zk("relative base path", ZooKeeperSettings.BASE_PATH, "locks", "absolute znode path"),
                zk("reserved base path", ZooKeeperSettings.BASE_PATH, "/zookeeper/locks", "reserves"),
                zk("negative session timeout", ZooKeeperSettings.SESSION_TIMEOUT, "-1s", "session-timeout has '-1s'"));
    }

    private static Arguments config(String name, Map<String, String> values, String expected) {
        return Arguments.of(name, values, expected);
    }

    private static Arguments redlock(String name, String nodes, String expected) {
        return config(name, Map.of(LockConfig.BACKEND, "redlock", RedlockSettings.NODES, nodes), expected);
    }

    private static Arguments setting(String name, String key, String value, String expected) {
        return config(
                name,
                Map.of(LockConfig.BACKEND, "redlock", RedlockSettings.NODES, "redis://127.0.0.1:7001", key, value),
                expected);
    }

    private static Arguments zk(String name, String key, String value, String expected) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put(LockConfig.BACKEND, "zookeeper");
        values.put(ZooKeeperSettings.CONNECT, "127.0.0.1:2181");
        values.put(key, value);
        return config(name, values, expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configurations")
    void aMalformedConfigurationIsRefusedByName(String name, Map<String, String> values, String expected) {
        CASES.incrementAndGet();
        assertThatThrownBy(() -> LockClient.create(LockConfig.fromMap(values)).close())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(expected)
                .message()
                .doesNotContain(SECRET);
    }

    // ----- lock names and durations, on both backends -----

    static Stream<Arguments> lockNames() {
        return Stream.of(
                Arguments.of("null", null, "must not be null"),
                Arguments.of("empty", "", "must not be blank"),
                Arguments.of("blank", "   ", "must not be blank"),
                Arguments.of("too long", "n".repeat(LockNames.MAX_LENGTH + 1), "at most 256 characters"),
                Arguments.of("line break", "orders\nshipped", "control characters"),
                Arguments.of("NUL", "orders\u0000", "control characters"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lockNames")
    void aMalformedLockNameIsRefusedOnEveryBackend(String name, String lockName, String expected) throws Exception {
        for (LockClient client : clients()) {
            try (client) {
                CASES.incrementAndGet();
                assertThatThrownBy(() -> client.lock(lockName))
                        .as(client.config().backend())
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(expected);
            }
        }
    }

    static Stream<Arguments> durations() {
        Duration second = Duration.ofSeconds(1);
        return Stream.of(
                duration("negative wait", lock -> lock.tryAcquire(Duration.ofMillis(-1)), "wait"),
                duration("null wait", lock -> lock.acquire(null), "wait"),
                duration("zero lease", lock -> lock.tryAcquire(second, Duration.ZERO), "leaseTime"),
                duration("negative lease", lock -> lock.acquire(second, Duration.ofSeconds(-3)), "leaseTime"),
                duration("null lease", lock -> lock.tryAcquire(second, null), "leaseTime"));
    }

    /** A call on a lock that may throw what the lock API declares. */
    @FunctionalInterface
    interface LockCall {
        void call(FencedLock lock) throws Exception;
    }

    private static Arguments duration(String name, LockCall call, String expected) {
        return Arguments.of(name, call, expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("durations")
    void aMalformedDurationIsRefusedAndNothingIsHeld(String name, LockCall call, String expected) throws Exception {
        for (LockClient client : clients()) {
            try (client) {
                CASES.incrementAndGet();
                FencedLock lock = client.lock("bad-duration");
                assertThatThrownBy(() -> call.call(lock))
                        .as(client.config().backend())
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(expected);
                Optional<Lease> free = lock.tryAcquire(Duration.ofSeconds(10));
                assertThat(free).as("the lock is free after the refused call").isPresent();
                CASES.incrementAndGet();
                assertThatThrownBy(() -> free.get().extend(Duration.ZERO))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("leaseTime must be positive");
                assertThat(free.get().isValid())
                        .as("a refused extension leaves the lease alone")
                        .isTrue();
                free.get().close();
            }
        }
        assertThat(redis.servers().get(0).command("EXISTS", RedlockKeys.lockKey("bad-duration")))
                .isEqualTo(0L);
    }

    private static List<LockClient> clients() {
        return List.of(
                LockClient.create(RedisSetup.config(redis.servers().uris(), Duration.ofSeconds(2))
                        .build()),
                LockClient.create(ZooKeeperSetup.config(
                                zookeeper.getConnectString(), Duration.ofSeconds(10), Duration.ofSeconds(5))
                        .build()));
    }

    // ----- node replies -----

    static Stream<Arguments> replies() {
        String script = "unexpected reply to the acquire script: ";
        return Stream.of(
                reply("hangs up at once", command -> Reply.CLOSE, "Unexpected end of stream"),
                reply(
                        "answers HTTP",
                        command ->
                                command == null ? Reply.NOTHING : Reply.thenClose("HTTP/1.1 400 Bad Request\r\n\r\n"),
                        "Unknown reply: H"),
                reply(
                        "INFO without run_id",
                        command -> {
                            if (command != null && command.get(0).equalsIgnoreCase("INFO")) {
                                return FakeRedisServer.bulk("# Server\r\nredis_version:7.0.15\r\n");
                            }
                            return FakeRedisServer.handshakeThen(c -> Reply.of("+OK\r\n"))
                                    .answer(command);
                        },
                        "INFO server has no run_id field"),
                afterHandshake("garbage", Reply.of("hello world\r\n"), "Unknown reply: h"),
                afterHandshake("status instead of array", Reply.of("+OK\r\n"), Pattern.quote(script + "\"OK\"")),
                afterHandshake("integer instead of array", Reply.of(":1\r\n"), Pattern.quote(script + "1")),
                afterHandshake("empty array", Reply.of("*0\r\n"), Pattern.quote(script + "[]")),
                afterHandshake(
                        "counter not a number",
                        Reply.of("*2\r\n:1\r\n$3\r\nabc\r\n"),
                        Pattern.quote(script + "[1, \"abc\"]")),
                afterHandshake(
                        "unknown outcome code",
                        Reply.of("*2\r\n:7\r\n$1\r\n5\r\n"),
                        Pattern.quote(script + "[7, \"5\"]")),
                afterHandshake("nil counter", Reply.of("*2\r\n:1\r\n$-1\r\n"), Pattern.quote(script + "[1, nil]")),
                afterHandshake("error reply", Reply.of("-ERR something broke\r\n"), "ERR something broke"),
                afterHandshake(
                        "half a reply, then hangs up", Reply.thenClose("*2\r\n:1\r\n"), "Unexpected end of stream"),
                // Jedis allocates what a bulk header announces before reading it: kept small here
                afterHandshake(
                        "16 MB bulk announced, then hangs up",
                        Reply.thenClose("$16777216\r\nab"),
                        "Unexpected end of stream|within 300 ms"),
                afterHandshake("never answers", Reply.HANG, "no reply within 300 ms|within 300 ms"),
                reply(
                        "NOSCRIPT forever",
                        FakeRedisServer.handshakeThen(command -> command.get(0).equalsIgnoreCase("SCRIPT")
                                ? FakeRedisServer.bulk("0000000000000000000000000000000000000000")
                                : Reply.of("-NOSCRIPT No matching script. Please use EVAL.\r\n")),
                        "NOSCRIPT No matching script"));
    }

    private static Arguments reply(String name, FakeRedisServer.Script script, String expected) {
        return Arguments.of(name, script, expected);
    }

    private static Arguments afterHandshake(String name, Reply reply, String expected) {
        return reply(name, FakeRedisServer.handshakeThen(command -> reply), expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("replies")
    void garbageFromTwoOfThreeNodesIsAClearErrorAndNothingIsLeftBehind(
            String name, FakeRedisServer.Script script, String expected) throws Exception {
        redis.servers().awaitUptime(Duration.ofSeconds(2));
        RedisServerProcess healthy = redis.servers().get(0);
        String lock = "bad-reply:" + name;
        try (FakeRedisServer fake1 = FakeRedisServer.start(script);
                FakeRedisServer fake2 = FakeRedisServer.start(script);
                LockClient client = LockClient.create(
                        RedisSetup.config(List.of(healthy.uri(), fake1.uri(), fake2.uri()), Duration.ofSeconds(2))
                                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofMillis(300))
                                .build())) {
            for (Consumer<FencedLock> call : List.<Consumer<FencedLock>>of(
                    lock1 -> sneaky(() -> lock1.tryAcquire(Duration.ZERO)),
                    lock1 -> sneaky(() -> lock1.acquire(Duration.ofSeconds(1))))) {
                CASES.incrementAndGet();
                Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> call.accept(client.lock(lock)));
                assertThat(thrown).isInstanceOf(LockUnavailableException.class);
                assertThat(thrown.getMessage())
                        .contains("1 of 3 nodes answered, 2 needed")
                        .contains("127.0.0.1:" + fake1.port())
                        .contains("127.0.0.1:" + fake2.port())
                        .containsPattern(expected);
                assertThat(healthy.command("EXISTS", RedlockKeys.lockKey(lock)))
                        .as("lock key left on the healthy node")
                        .isEqualTo(0L);
            }
        }
    }

    @FunctionalInterface
    private interface Call {
        Object call() throws Exception;
    }

    private static void sneaky(Call call) {
        try {
            call.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
