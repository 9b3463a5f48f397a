package io.valueguard.api;

import io.valueguard.config.ValueGuardProperties;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/** Puts {@link RequestSizeLimit} in front of everything else, authentication included. */
@Configuration(proxyBeanMethods = false)
class RequestLimits {

	@Bean
	FilterRegistrationBean<RequestSizeLimit> requestSizeLimit(ValueGuardProperties properties) {
		FilterRegistrationBean<RequestSizeLimit> registration = new FilterRegistrationBean<>(
				new RequestSizeLimit(properties));
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
		return registration;
	}

}
