package dev.fencedlock.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisServerProcessIT {

    @Test
    void startsOnAFreePortWithoutPersistence() {
        try (RedisServerProcess server = RedisServerProcess.start()) {
            assertThat(server.port()).isNotEqualTo(6379);
            assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
            assertThat(server.command("PING")).isEqualTo("PONG");
            assertThat(server.command("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
            assertThat(server.command("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
        }
    }

    @Test
    void aSentinelMonitorsTheMasterItWasGivenAndDiesWithClose() {
        try (RedisServerProcess master = RedisServerProcess.start()) {
            RedisServerProcess sentinel = RedisServerProcess.builder()
                    .sentinel("testkit-master", master, 1, Duration.ofSeconds(1))
                    .start();
            long pid;
            try (sentinel) {
                pid = sentinel.pid();
                assertThat(sentinel.port()).isNotEqualTo(master.port()).isNotEqualTo(6379);
                assertThat(sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "testkit-master"))
                        .isEqualTo(List.of("127.0.0.1", Integer.toString(master.port())));
                assertThat(sentinel.toString()).startsWith("redis-sentinel[");
            }
            assertThat(ProcessHandle.of(pid)).isEmpty();
        }
    }

    @Test
    void restartEmptyKeepsThePortAndLosesTheData() {
        try (RedisServerProcess server = RedisServerProcess.start()) {
            server.command("SET", "k", "v");
            long pid = server.pid();
            String runId = runId(server);
            server.restartEmpty();
            assertThat(server.pid()).isNotEqualTo(pid);
            assertThat(runId(server)).isNotEqualTo(runId);
            assertThat(server.command("GET", "k")).isNull();
            server.kill();
            assertThat(server.isAlive()).isFalse();
            assertThat(ProcessHandle.of(pid)).isEmpty();
            server.restartEmpty();
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void aPausedServerAcceptsButDoesNotAnswerUntilResumed() throws IOException {
        try (RedisServerProcess server = RedisServerProcess.start()) {
            server.pause();
            assertThat(server.isPaused()).isTrue();
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(server.host(), server.port()), 1_000);
                socket.setSoTimeout(200);
                OutputStream out = socket.getOutputStream();
                out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
                server.resume();
                socket.setSoTimeout(5_000);
                byte[] reply = in.readNBytes(7);
                assertThat(new String(reply, StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
            }
        }
    }

    @Test
    void closeKillsTheProcessAndRemovesItsDirectory() {
        RedisServerProcess server = RedisServerProcess.start();
        long pid = server.pid();
        Path log = server.logFile();
        assertThat(log).exists();
        server.close();
        server.close();
        assertThat(ProcessHandle.of(pid)).isEmpty();
        assertThat(Files.exists(log.getParent())).isFalse();
        assertThatThrownBy(server::pid).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void passwordsAndAclUsersAreConfigured() {
        try (RedisServerProcess server = RedisServerProcess.builder()
                .password("default-secret")
                .user("app", "app-secret")
                .start()) {
            assertThat(server.uri()).isEqualTo("redis://app:app-secret@127.0.0.1:" + server.port());
            assertThat(server.command("ACL", "WHOAMI")).isEqualTo("app");
            assertThat(server.uri(null, "default-secret"))
                    .isEqualTo("redis://:default-secret@127.0.0.1:" + server.port());
        }
    }

    @Test
    void aGroupStartsIndependentServersAndHealsThem() {
        try (RedisServers servers = RedisServers.start(3)) {
            assertThat(servers.nodes().split(",")).hasSize(3);
            servers.get(0).command("SET", "k", "v");
            servers.get(1).kill();
            servers.get(2).pause();
            servers.heal();
            for (RedisServerProcess server : servers.all()) {
                assertThat(server.isAlive()).isTrue();
                assertThat(server.isPaused()).isFalse();
                assertThat(server.command("DBSIZE")).isEqualTo(0L);
            }
        }
    }

    private static String runId(RedisServerProcess server) {
        String info = (String) server.command("INFO", "server");
        return info.lines()
                .filter(line -> line.startsWith("run_id:"))
                .findFirst()
                .orElseThrow()
                .substring("run_id:".length());
    }

    @Test
    void awaitUptimeReturnsOnceEveryNodeReportsTheNeededUptime() throws InterruptedException {
        try (RedisServers servers = RedisServers.start(2)) {
            servers.awaitUptime(Duration.ofMillis(1));
            for (RedisServerProcess server : servers.all()) {
                assertThat(RedisInfo.uptimeSeconds((String) server.command("INFO", "server")))
                        .isGreaterThanOrEqualTo(3);
            }
        }
    }
}
