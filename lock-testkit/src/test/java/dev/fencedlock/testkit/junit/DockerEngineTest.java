package dev.fencedlock.testkit.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DockerEngineTest {
    @Test
    void anEngineThatPongsAnswers() {
        try (FakeDockerEngine engine = new FakeDockerEngine(FakeDockerEngine.PONG)) {
            assertThat(DockerEngine.at(engine.endpoint()).answers()).isTrue();
        }
    }

    @Test
    void aSocketWithoutAHealthyEngineDoesNotAnswer() {
        try (FakeDockerEngine failing = new FakeDockerEngine("HTTP/1.1 500 Internal Server Error\r\n\r\n")) {
            assertThat(DockerEngine.at(failing.endpoint()).answers()).isFalse();
        }
        try (FakeDockerEngine silent = new FakeDockerEngine(null)) {
            assertThat(DockerEngine.at(silent.endpoint()).answers())
                    .as("no reply within 3 s")
                    .isFalse();
        }
        FakeDockerEngine dead = new FakeDockerEngine(FakeDockerEngine.PONG);
        dead.close();
        assertThat(DockerEngine.at(dead.endpoint()).answers())
                .as("socket file left by a dead engine")
                .isFalse();
        assertThat(DockerEngine.at("unix:///nonexistent/docker.sock").answers()).isFalse();
    }

    @Test
    void aTcpEndpointIsPingedToo() throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread answer = new Thread(() -> {
                try (Socket connection = server.accept();
                        OutputStream out = connection.getOutputStream()) {
                    connection.getInputStream().read(new byte[4096]);
                    out.write(FakeDockerEngine.PONG.getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    // the test fails on the answer
                }
            });
            answer.setDaemon(true);
            answer.start();
            assertThat(DockerEngine.at("tcp://127.0.0.1:" + server.getLocalPort())
                            .answers())
                    .isTrue();
        }
    }

    @Test
    void badEndpointsAreRefusedWithTheirValue() {
        assertThatThrownBy(() -> DockerEngine.at("npipe:////./pipe/docker_engine"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'npipe:////./pipe/docker_engine'");
        assertThatThrownBy(() -> DockerEngine.at("tcp://host-without-port"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'tcp://host-without-port'");
    }
}
