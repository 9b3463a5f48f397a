package io.valueguard.security;

import io.valueguard.config.SecurityProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/** What start-up does with each combination of security settings, before anything else of the service starts. */
@ExtendWith(OutputCaptureExtension.class)
class ApiSecurityConfigurationTests {

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(SecurityProperties.class)
	@Import(ApiSecurityConfiguration.class)
	static class Settings {

	}

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SecurityAutoConfiguration.class,
				ServletWebSecurityAutoConfiguration.class))
		.withUserConfiguration(Settings.class);

	@Test
	void shouldRunOpenWithOneWarningWhenNothingIsConfigured(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBeansOfType(SecurityFilterChain.class)).as("the instance calls' and the API's")
				.containsOnlyKeys("instanceCalls", "apiSecurity");
			assertThat(output).containsOnlyOnce("The API is open: anyone who reaches it can claim and release any key");
		});
	}

	@Test
	void shouldRefuseToStartOpenWhenAuthenticationIsRequired() {
		this.runner.withPropertyValues("valueguard.security.require-authentication=true")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("valueguard.security.require-authentication is true, but no way to authenticate")
				.hasMessageContaining("spring.security.oauth2.resourceserver.jwt.issuer-uri")
				.hasMessageContaining("valueguard.security.users"));
	}

	@Test
	void shouldRefuseASecuredApiWithoutAnInternalSecret() {
		this.runner.withPropertyValues("valueguard.security.users[0].name=ops",
				"valueguard.security.users[0].password=$2a$04$abcdefghijklmnopqrstuuTcVS4WX3pY8LqM4P8Wq7FO2Ih3bJk1e",
				"valueguard.security.users[0].roles=read")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("set valueguard.security.internal-secret"));
	}

	@Test
	void shouldRefuseAPasswordThatIsNotABcryptHash() {
		this.runner.withPropertyValues("valueguard.security.users[0].name=ops",
				"valueguard.security.users[0].password=hunter2", "valueguard.security.users[0].roles=read",
				"valueguard.security.internal-secret=0123456789abcdef0123456789abcdef")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("must be a bcrypt hash"));
	}

	@Test
	void shouldStartSecuredWithBasicUsersAndASecret() {
		this.runner.withPropertyValues("valueguard.security.users[0].name=ops",
				"valueguard.security.users[0].password=$2a$04$abcdefghijklmnopqrstuuTcVS4WX3pY8LqM4P8Wq7FO2Ih3bJk1e",
				"valueguard.security.users[0].roles=read,write",
				"valueguard.security.internal-secret=0123456789abcdef0123456789abcdef")
			.run((context) -> assertThat(context).hasNotFailed());
	}

}
