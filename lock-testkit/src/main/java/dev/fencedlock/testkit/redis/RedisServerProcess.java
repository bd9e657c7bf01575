package dev.fencedlock.testkit.redis;

import dev.fencedlock.testkit.net.FreePorts;
import dev.fencedlock.testkit.process.ProcessSignals;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * One {@code redis-server} child process on a free local port, for tests. No persistence ({@code
 * --save '' --appendonly no}), so a restart always comes back empty, as a crashed node without
 * durable storage would.
 *
 * <p>Faults are injected by signal, always by this process's own pid: {@link #kill()} (SIGKILL),
 * {@link #pause()} / {@link #resume()} (SIGSTOP / SIGCONT), {@link #restartEmpty()}. The server is
 * killed by {@link #close()}, and by a JVM shutdown hook if a test never gets that far; servers left
 * by a JVM that was itself killed are removed the next time this class is used.
 *
 * <p>The executable is {@code redis-server} from the system property {@code fencedlock.redis-server},
 * else the environment variable {@code REDIS_SERVER}, else {@code /usr/bin/redis-server} if present,
 * else the {@code PATH}. Port 6379 is never used.
 *
 * <p>Thread-safety: the fault and lifecycle methods are synchronized; reading {@link #port()} and
 * {@link #uri()} is safe at any time.
 */
public final class RedisServerProcess implements AutoCloseable {
    private static final String HOST = "127.0.0.1";
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(15);
    private static final int START_ATTEMPTS = 5;

    private final Builder options;
    private final Path dir;
    private final int port;
    private Process process;
    private int incarnation;
    private boolean paused;
    private boolean closed;

    private RedisServerProcess(Builder options, Path dir, int port) {
        this.options = options;
        this.dir = dir;
        this.port = port;
    }

    /** Starts a server with default options: no password, plain TCP. */
    public static RedisServerProcess start() {
        return builder().start();
    }

    public static Builder builder() {
        return new Builder();
    }

    public String host() {
        return HOST;
    }

    /** The port; it stays the same across {@link #restartEmpty()}. */
    public int port() {
        return port;
    }

    /** The pid of the current incarnation. */
    public synchronized long pid() {
        requireStarted();
        return process.pid();
    }

    /**
     * The node URI a client should use: {@code redis://} or {@code rediss://}, with the ACL user and
     * password if {@link Builder#user} was set, else the {@code requirepass} password if set.
     */
    public String uri() {
        if (options.user != null) {
            return uri(options.user, options.userPassword);
        }
        return uri(null, options.password);
    }

    /** The node URI with the given credentials ({@code null} for none), e.g. to test a wrong password. */
    public String uri(String user, String password) {
        String credentials = "";
        if (password != null) {
            credentials = (user == null ? "" : encode(user)) + ":" + encode(password) + "@";
        }
        return (options.tls == null ? "redis://" : "rediss://") + credentials + HOST + ":" + port;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    public synchronized boolean isPaused() {
        return paused && isAlive();
    }

    /** Freezes the server with SIGSTOP: connections stay open, nothing is answered. */
    public synchronized void pause() {
        requireAlive();
        signal("STOP");
        paused = true;
    }

    /** Thaws a {@link #pause() paused} server with SIGCONT. */
    public synchronized void resume() {
        requireAlive();
        signal("CONT");
        paused = false;
    }

    /** Kills the server with SIGKILL (also when paused) and waits until it is gone. */
    public synchronized void kill() {
        requireStarted();
        killQuietly();
    }

    /** Stops the server with SIGTERM and waits; uses SIGKILL if it does not exit within 10 s. */
    public synchronized void stop() {
        requireStarted();
        if (!process.isAlive()) {
            return;
        }
        if (paused) {
            signal("CONT");
            paused = false;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                killQuietly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            killQuietly();
        }
        ServerReaper.unregister(this);
    }

    /**
     * Kills the server if it runs (SIGKILL) and starts a new one on the same port with the same
     * options; also the way to bring back a server after {@link #kill()} or {@link #stop()}. The new
     * incarnation has no data, no scripts and a new {@code run_id}.
     *
     * @throws IllegalStateException if another process took the port meanwhile
     */
    public synchronized void restartEmpty() {
        requireStarted();
        killQuietly();
        if (!launch()) {
            throw new IllegalStateException("port " + port + " was taken by another process during the restart");
        }
    }

    /**
     * Runs one command and returns its reply: {@code String} for status and bulk replies ({@code null}
     * for nil), {@code Long} for integers, {@code List} for arrays.
     *
     * @throws RedisCommandException if the server answers with an error
     * @throws UncheckedIOException if it cannot be reached
     */
    public Object command(String... command) {
        return commands(List.of(Arrays.asList(command)));
    }

    /** Runs several commands on one connection and returns the last reply; see {@link #command}. */
    public Object commands(List<List<String>> commands) {
        List<String> auth = new ArrayList<>();
        if (options.user != null) {
            auth.add(options.user);
            auth.add(options.userPassword);
        } else if (options.password != null) {
            auth.add(options.password);
        }
        try {
            return Resp.call(HOST, port, options.tls == null ? null : options.tls.sslSocketFactory(), auth, commands);
        } catch (IOException e) {
            throw new UncheckedIOException("redis-server on port " + port + ": " + e.getMessage(), e);
        }
    }

    /** Deletes every key ({@code FLUSHALL}). */
    public void flushAll() {
        command("FLUSHALL");
    }

    /** The log of the current incarnation, for diagnosing a failed test. */
    public synchronized Path logFile() {
        return dir.resolve("redis-" + incarnation + ".log");
    }

    /** Kills the server and deletes its directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        killQuietly();
        ServerReaper.deleteRecursively(dir);
    }

    /** SIGKILL without checks, for cleanup paths; waits for the process to be gone. */
    synchronized void killQuietly() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        paused = false;
        ServerReaper.unregister(this);
    }

    private void signal(String signal) {
        ProcessSignals.send(signal, process.pid());
    }

    private void requireStarted() {
        if (process == null || closed) {
            throw new IllegalStateException("redis-server on port " + port + " is closed");
        }
    }

    private void requireAlive() {
        requireStarted();
        if (!process.isAlive()) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
    }

    /** Starts the next incarnation on {@link #port}; false if the port was taken meanwhile. */
    private boolean launch() {
        incarnation++;
        Path log = logFile();
        List<String> command = new ArrayList<>(List.of(options.executable));
        if (options.sentinelConfig != null) {
            // Sentinel rewrites its config file, so it gets a fresh writable copy per incarnation
            Path config = dir.resolve("sentinel-" + incarnation + ".conf");
            try {
                Files.writeString(config, options.sentinelConfig);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + config, e);
            }
            command.addAll(List.of(config.toString(), "--sentinel"));
        }
        command.addAll(List.of(
                "--bind",
                HOST,
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--dir",
                dir.toString(),
                "--logfile",
                log.toString()));
        if (options.tls == null) {
            command.addAll(List.of("--port", Integer.toString(port)));
        } else {
            command.addAll(List.of("--port", "0", "--tls-port", Integer.toString(port)));
            command.addAll(options.tls.serverArguments());
        }
        if (options.password != null) {
            command.addAll(List.of("--requirepass", options.password));
        }
        if (options.user != null) {
            command.addAll(List.of("--user", options.user, "on", ">" + options.userPassword, "~*", "&*", "+@all"));
        }
        command.addAll(options.extraArguments);
        try {
            process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis-" + incarnation + ".out").toFile())
                    .start();
            Files.writeString(dir.resolve(ServerReaper.PID_FILE), Long.toString(process.pid()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + options.executable, e);
        }
        ServerReaper.register(this);
        return awaitReady(log);
    }

    private boolean awaitReady(Path log) {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            String text = read(log);
            if (text.contains(options.sentinelConfig == null ? "Ready to accept connections" : "Sentinel ID is")) {
                return true;
            }
            if (!process.isAlive()) {
                ServerReaper.unregister(this);
                if (text.contains("Address already in use")) {
                    return false;
                }
                throw new IllegalStateException("redis-server on port " + port + " exited with " + process.exitValue()
                        + ":\n" + text + read(dir.resolve("redis-" + incarnation + ".out")));
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                killQuietly();
                throw new IllegalStateException("interrupted while starting redis-server", e);
            }
        }
        killQuietly();
        throw new IllegalStateException("redis-server on port " + port + " not ready after "
                + STARTUP_TIMEOUT.toSeconds() + " s:\n" + read(log));
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public String toString() {
        return (options.sentinelConfig == null ? "redis-server[" : "redis-sentinel[") + HOST + ":" + port
                + (options.tls == null ? "" : " tls") + "]";
    }

    /** Options of a test server. Not thread-safe. */
    public static final class Builder {
        private String executable = defaultExecutable();
        private String password;
        private String user;
        private String userPassword;
        private RedisTls tls;
        private String sentinelConfig;
        private final List<String> extraArguments = new ArrayList<>();

        private Builder() {}

        private static String defaultExecutable() {
            String property = System.getProperty("fencedlock.redis-server");
            if (property != null && !property.isBlank()) {
                return property;
            }
            String env = System.getenv("REDIS_SERVER");
            if (env != null && !env.isBlank()) {
                return env;
            }
            return Files.isExecutable(Path.of("/usr/bin/redis-server")) ? "/usr/bin/redis-server" : "redis-server";
        }

        /** The {@code redis-server} executable to run. */
        public Builder executable(String executable) {
            this.executable = Objects.requireNonNull(executable, "executable");
            return this;
        }

        /** Requires this password for the default user ({@code requirepass}). */
        public Builder password(String password) {
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /** Adds an ACL user with every permission; {@link #uri()} then logs in as that user. */
        public Builder user(String name, String password) {
            this.user = Objects.requireNonNull(name, "name");
            this.userPassword = Objects.requireNonNull(password, "password");
            return this;
        }

        /** Serves TLS only, with the certificate of {@code tls}; {@link #uri()} becomes {@code rediss://}. */
        public Builder tls(RedisTls tls) {
            this.tls = Objects.requireNonNull(tls, "tls");
            return this;
        }

        /**
         * Runs a Sentinel ({@code redis-server <config> --sentinel}) instead of a data node: it
         * monitors {@code master} under {@code masterName}, agrees on a failure with {@code quorum}
         * Sentinels, and calls the master down after {@code downAfter} without an answer. Failover
         * timeout: 3 s. Not with {@link #tls}, {@link #password} or {@link #user}.
         */
        public Builder sentinel(String masterName, RedisServerProcess master, int quorum, Duration downAfter) {
            this.sentinelConfig = "sentinel monitor " + masterName + " " + HOST + " " + master.port() + " " + quorum
                    + "\nsentinel down-after-milliseconds " + masterName + " " + downAfter.toMillis()
                    + "\nsentinel failover-timeout " + masterName + " 3000\n";
            return this;
        }

        /** Passes more {@code redis-server} arguments, e.g. {@code "--maxmemory", "10mb"}. */
        public Builder arguments(String... arguments) {
            extraArguments.addAll(List.of(arguments));
            return this;
        }

        /**
         * Starts the server on a free port and waits until it accepts connections.
         *
         * @throws IllegalStateException if it does not start; the message carries its log
         */
        public RedisServerProcess start() {
            Builder frozen = copy();
            for (int attempt = 1; ; attempt++) {
                Path dir = newDirectory();
                RedisServerProcess server = new RedisServerProcess(frozen, dir, FreePorts.loopback());
                boolean started;
                try {
                    synchronized (server) {
                        started = server.launch();
                    }
                } catch (RuntimeException e) {
                    server.close();
                    throw e;
                }
                if (started) {
                    return server;
                }
                server.close();
                if (attempt == START_ATTEMPTS) {
                    throw new IllegalStateException(
                            "redis-server found its port taken " + START_ATTEMPTS + " times in a row");
                }
            }
        }

        private Builder copy() {
            Builder copy = new Builder();
            copy.executable = executable;
            copy.password = password;
            copy.user = user;
            copy.userPassword = userPassword;
            copy.tls = tls;
            copy.sentinelConfig = sentinelConfig;
            copy.extraArguments.addAll(extraArguments);
            return copy;
        }

        private static Path newDirectory() {
            try {
                Files.createDirectories(ServerReaper.BASE);
                return Files.createTempDirectory(ServerReaper.BASE, ServerReaper.ownerPrefix());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a directory for redis-server", e);
            }
        }
    }
}
