<?php
// A PHP SoapServer for the corpus's ns-rpcexample.wsdl (SOAP 1.2, rpc/encoded), at the path
// PHP_PEER_WSDL names: it refuses an envelope that carries encodingStyle (SOAP 1.2 forbids it
// there), and answers with rpc:result beside the return value, as SOAP 1.2 RPC has it. Each call
// appends [operation, arguments] as one JSON line to the file PHP_PEER_LOG names.
ini_set('soap.wsdl_cache_enabled', '0');

class RpcExample
{
    private function record($operation, $arguments)
    {
        file_put_contents(getenv('PHP_PEER_LOG'), json_encode([$operation, $arguments]) . "\n", FILE_APPEND);
    }

    public function getKey($params)
    {
        $this->record('getKey', [$params]);
        return "{$params->module}/{$params->key}";
    }

    public function listKeys($params)
    {
        $this->record('listKeys', [$params]);
        return ["{$params->base}.a", "{$params->base}.b"];
    }
}

$server = new SoapServer(getenv('PHP_PEER_WSDL'), ['soap_version' => SOAP_1_2]);
$server->setObject(new RpcExample());
$server->handle();
