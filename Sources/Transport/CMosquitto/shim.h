#ifndef MEDIANODE_CMOSQUITTO_SHIM_H
#define MEDIANODE_CMOSQUITTO_SHIM_H
// mqtt_protocol.h carries the MQTT 5 property identifiers and reason codes that mosquitto.h only declares.
#include <mosquitto.h>
#include <mqtt_protocol.h>
// The event loop that serves many clients from a few threads waits on their sockets with epoll.
#include <sys/epoll.h>
#endif
